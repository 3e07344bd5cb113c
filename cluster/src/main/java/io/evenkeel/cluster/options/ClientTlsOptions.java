package io.evenkeel.cluster.options;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The flags of a shard-server client's mutual TLS, declared once: the CA of the servers, and this process's
 * certificate and key. A picocli mixin; {@link #settings} is what the process runs by, and {@link
 * ClientTlsSettings#toArgs} writes it back as these flags.
 */
public final class ClientTlsOptions {
  public static final String CA = "--tls-ca";
  public static final String CERTIFICATE = "--tls-cert";
  public static final String KEY = "--tls-key";

  @Option(names = CA, paramLabel = "PEM", description = "With --tls-cert and --tls-key: call the shard servers over "
      + "mutual TLS, trusting the servers this CA signed.")
  private Path tlsCa;

  @Option(names = CERTIFICATE, paramLabel = "PEM", description = "This process's certificate. Its common name is its "
      + "identity: the shard servers let only their --writers (their default: ingest) write, so the ingest job's must "
      + "be among them; a reader's, the query service's, is not.")
  private Path tlsCert;

  @Option(names = KEY, paramLabel = "PEM", description = "This process's private key (PKCS#8).")
  private Path tlsKey;

  /** The flags as parsed, unchecked: see {@link ClientTlsSettings#clientTls}. */
  public ClientTlsSettings settings() {
    return new ClientTlsSettings(string(tlsCa), string(tlsCert), string(tlsKey));
  }

  private static String string(Path file) {
    return file == null ? null : file.toString();
  }
}
