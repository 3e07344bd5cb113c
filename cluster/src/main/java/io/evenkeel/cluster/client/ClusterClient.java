package io.evenkeel.cluster.client;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.ChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
  /** How long a call waits for a channel that failed to connect to connect again: loopback and LAN connect in ms. */
  private static final long RECONNECT_WAIT_MS = 200;

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
    ManagedChannel channel = channels.computeIfAbsent(server, a -> Grpc
        .newChannelBuilderForAddress(a.host(), a.port(), credentials)
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .directExecutor()
        .build());
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      // A channel that could not connect waits ever longer (up to two minutes) before it tries again, and fails
      // every call meanwhile: a server restarted on the same address would be unreachable for that long. Callers
      // stop calling a dead server on their own (the query service's breakers), so each call here tries afresh.
      channel.resetConnectBackoff();
      awaitReady(channel);
    }
    return channel;
  }

  /**
   * Waits up to {@link #RECONNECT_WAIT_MS} for a channel that is connecting again to be ready: until then it keeps
   * failing calls with its last error. A server that is still down costs a caller that long.
   */
  private static void awaitReady(ManagedChannel channel) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECONNECT_WAIT_MS);
    ConnectivityState state = channel.getState(false);
    while (state != ConnectivityState.READY && state != ConnectivityState.SHUTDOWN) {
      long left = deadline - System.nanoTime();
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(state, changed::countDown);
      try {
        if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      state = channel.getState(false);
    }
  }

  /** Closes every channel at once; calls in flight fail with CANCELLED. */
  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
