package io.evenkeel.cluster.client;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * How a process proves itself to shard servers that require mutual TLS: the CA that signed the servers'
 * certificates, and this process's own certificate and PKCS#8 key (PEM). The certificate's common name is the
 * process's identity: a shard server lets only its writers (the ingest job, by default) call Write.
 */
public record ClientTls(Path caCertificate, Path certificate, Path privateKey) {
  /**
   * The settings of a process's {@code --tls-ca}, {@code --tls-cert} and {@code --tls-key} options: null (plaintext)
   * when none is given; all three or none.
   */
  public static ClientTls of(Path caCertificate, Path certificate, Path privateKey) {
    int given = (caCertificate == null ? 0 : 1) + (certificate == null ? 0 : 1) + (privateKey == null ? 0 : 1);
    if (given == 0) {
      return null;
    }
    if (given < 3) {
      throw new IllegalArgumentException("--tls-ca, --tls-cert and --tls-key go together");
    }
    return new ClientTls(caCertificate, certificate, privateKey);
  }

  ChannelCredentials credentials() {
    try {
      return TlsChannelCredentials.newBuilder()
          .trustManager(caCertificate.toFile())
          .keyManager(certificate.toFile(), privateKey.toFile())
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the TLS files " + this + ": " + e.getMessage(), e);
    }
  }
}
