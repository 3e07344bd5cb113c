package io.evenkeel.cluster.client;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How every Evenkeel process talks to shard servers: one gRPC channel per server, opened on first use and shared by
 * all calls to it, with one message-size limit. Thread-safe.
 *
 * <p>Channels run callbacks on the transport thread ({@code directExecutor}): every caller only completes futures or
 * releases permits there, so handing each answer to another thread first would only add latency.
 */
public final class ClusterClient implements AutoCloseable {
  /** The largest answer a shard server may send: a full fetch carries up to 100,000 rows of one shard. */
  public static final int MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

  private final Map<ShardAddress, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ChannelCredentials credentials;

  /** Plaintext channels, to shard servers without TLS. */
  public ClusterClient() {
    this.credentials = InsecureChannelCredentials.create();
  }

  /** Mutual-TLS channels with {@code tls}, or plaintext ones when it is null. */
  public ClusterClient(ClientTls tls) {
    this.credentials = tls == null ? InsecureChannelCredentials.create() : tls.credentials();
  }

  /** Opens the channels to {@code servers} now: a channel connects lazily, and a first call's deadline is short. */
  public void connect(Collection<ShardAddress> servers) {
    servers.stream().distinct().forEach(server -> channel(server).getState(true));
  }

  /** An asynchronous stub on {@code server}'s channel; give each call its deadline. */
  public ShardServiceGrpc.ShardServiceFutureStub futureStub(ShardAddress server) {
    return ShardServiceGrpc.newFutureStub(channel(server));
  }

  /** A blocking stub on {@code server}'s channel; give each call its deadline. */
  public ShardServiceGrpc.ShardServiceBlockingStub blockingStub(ShardAddress server) {
    return ShardServiceGrpc.newBlockingStub(channel(server));
  }

  private ManagedChannel channel(ShardAddress server) {
    return channels.computeIfAbsent(server, a -> Grpc
        .newChannelBuilderForAddress(a.host(), a.port(), credentials)
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .directExecutor()
        .build());
  }

  /** Closes every channel at once; calls in flight fail with CANCELLED. */
  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
