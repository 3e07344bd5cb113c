package io.evenkeel.shard.replication;

import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One gRPC channel per peer shard server ("host:port"), shared by the copies of every shard. Thread-safe. */
public final class PeerChannels implements AutoCloseable {
  /** A pre-copied merged segment and a write batch both fit; file chunks are 1 MiB. */
  private static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ChannelCredentials credentials;

  public PeerChannels() {
    this(InsecureChannelCredentials.create());
  }

  public PeerChannels(ChannelCredentials credentials) {
    this.credentials = credentials;
  }

  public ReplicationServiceGrpc.ReplicationServiceBlockingStub blockingStub(String peer) {
    return ReplicationServiceGrpc.newBlockingStub(channel(peer));
  }

  public ReplicationServiceGrpc.ReplicationServiceFutureStub futureStub(String peer) {
    return ReplicationServiceGrpc.newFutureStub(channel(peer));
  }

  /** The peer's shard service (for its copies' stats), on the same channel. */
  public ShardServiceGrpc.ShardServiceBlockingStub shardStub(String peer) {
    return ShardServiceGrpc.newBlockingStub(channel(peer));
  }

  private ManagedChannel channel(String peer) {
    return channels.computeIfAbsent(peer, p -> {
      int colon = p.lastIndexOf(':');
      return Grpc.newChannelBuilderForAddress(p.substring(0, colon), Integer.parseInt(p.substring(colon + 1)),
              credentials)
          .maxInboundMessageSize(MAX_MESSAGE_BYTES)
          .build();
    });
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
