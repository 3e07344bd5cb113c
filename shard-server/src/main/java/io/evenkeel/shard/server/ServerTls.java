package io.evenkeel.shard.server;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * Mutual TLS for a shard server: its certificate and PKCS#8 key (PEM), the CA whose certificates its clients must
 * present, the common names of the clients that may write (the ingest job) and of the peers that may call the
 * replication service (other shard servers, which present this same kind of certificate); every other client with a
 * valid certificate may only read.
 */
public record ServerTls(Path certificate, Path privateKey, Path clientCa, Set<String> writers, Set<String> peers) {
  /** The common name shard servers' certificates carry by default. */
  public static final String PEER = "shard-server";

  public ServerTls {
    writers = Set.copyOf(writers);
    peers = Set.copyOf(peers);
  }

  public ServerTls(Path certificate, Path privateKey, Path clientCa, Set<String> writers) {
    this(certificate, privateKey, clientCa, writers, Set.of(PEER));
  }

  /** This server as a client of its peers: its own certificate, and the CA it trusts. */
  public ChannelCredentials peerCredentials() throws IOException {
    return TlsChannelCredentials.newBuilder()
        .keyManager(certificate.toFile(), privateKey.toFile())
        .trustManager(clientCa.toFile())
        .build();
  }

  ServerCredentials credentials() throws IOException {
    return TlsServerCredentials.newBuilder()
        .keyManager(certificate.toFile(), privateKey.toFile())
        .trustManager(clientCa.toFile())
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
        .build();
  }
}
