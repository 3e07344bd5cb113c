package io.evenkeel.shard.server;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * Mutual TLS for a shard server: its certificate and PKCS#8 key (PEM), the CA whose certificates its clients must
 * present, and the common names of the clients that may write (the ingest job, and later the replication peers);
 * every other client with a valid certificate may only read.
 */
public record ServerTls(Path certificate, Path privateKey, Path clientCa, Set<String> writers) {
  public ServerTls {
    writers = Set.copyOf(writers);
  }

  ServerCredentials credentials() throws IOException {
    return TlsServerCredentials.newBuilder()
        .keyManager(certificate.toFile(), privateKey.toFile())
        .trustManager(clientCa.toFile())
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
        .build();
  }
}
