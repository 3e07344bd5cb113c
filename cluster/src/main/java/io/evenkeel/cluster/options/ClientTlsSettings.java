package io.evenkeel.cluster.options;

import io.evenkeel.cluster.client.ClientTls;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;

/**
 * A shard-server client's TLS files as {@link ClientTlsOptions} give them, each null when not given. Strings, not
 * paths as in {@link ClientTls}, so that the settings serialize (a Flink job ships them to its operators).
 */
public record ClientTlsSettings(String caCertificate, String certificate, String privateKey) implements Serializable {
  /** The settings of {@code tls}'s files; none for null (plaintext). */
  public static ClientTlsSettings of(ClientTls tls) {
    return tls == null ? new ClientTlsSettings(null, null, null) : new ClientTlsSettings(
        tls.caCertificate().toString(), tls.certificate().toString(), tls.privateKey().toString());
  }

  /** The client's TLS, or null for plaintext; throws unless all three files or none are given. */
  public ClientTls clientTls() {
    return ClientTls.of(path(caCertificate), path(certificate), path(privateKey));
  }

  /** These settings as the flags of another process; what was not given is left out. */
  public List<String> toArgs() {
    return new FlagArgs().add(ClientTlsOptions.CA, caCertificate).add(ClientTlsOptions.CERTIFICATE, certificate)
        .add(ClientTlsOptions.KEY, privateKey).toList();
  }

  private static Path path(String file) {
    return file == null ? null : Path.of(file);
  }
}
