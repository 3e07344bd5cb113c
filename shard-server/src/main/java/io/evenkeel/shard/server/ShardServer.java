package io.evenkeel.shard.server;

import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.grpc.ShardGrpcService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A process's shards, each in {@code <data dir>/shard-<id>}, served over gRPC. */
public final class ShardServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardServer.class);
  /** Large write batches exceed gRPC's default 4 MiB. */
  static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

  private enum State { LATENT, STARTED, CLOSED }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Path dataDirectory;
  private final Set<Integer> shardIds;
  private final ShardSettings settings;
  private final InetSocketAddress address;
  private final ServerTls tls;
  private final Map<Integer, Shard> shards = new TreeMap<>();
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, runnable -> {
    Thread thread = new Thread(runnable, "shard-maintenance");
    thread.setDaemon(true);
    return thread;
  });
  private Server server;

  public ShardServer(Path dataDirectory, Set<Integer> shardIds, ShardSettings settings, InetSocketAddress address) {
    this(dataDirectory, shardIds, settings, address, null);
  }

  /** With {@code tls} null, plaintext and anyone who reaches the port may write. */
  public ShardServer(Path dataDirectory, Set<Integer> shardIds, ShardSettings settings, InetSocketAddress address,
      ServerTls tls) {
    this.tls = tls;
    if (shardIds.isEmpty()) {
      throw new IllegalArgumentException("a shard server must host at least one shard");
    }
    this.dataDirectory = dataDirectory;
    this.shardIds = Set.copyOf(shardIds);
    this.settings = settings;
    this.address = address;
  }

  /** Opens (recovering) every shard, then starts serving; returns the bound port. */
  public int start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("Cannot be started more than once");
    }
    for (int id : new TreeSet<>(shardIds)) {
      shards.put(id, Shard.open(id, dataDirectory.resolve("shard-" + id), settings, scheduler));
    }
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address,
            tls == null ? InsecureServerCredentials.create() : tls.credentials())
        .maxInboundMessageSize(MAX_MESSAGE_BYTES);
    if (tls == null) {
      builder.addService(new ShardGrpcService(this::shard));
    } else {
      builder.addService(ServerInterceptors.intercept(new ShardGrpcService(this::shard),
          new WriterCheck(tls.writers())));
    }
    server = builder.build().start();
    LOG.info("serving shards {} on {}:{} from {} ({}; {})", shards.keySet(), address.getHostString(),
        server.getPort(), dataDirectory, settings, tls == null ? "plaintext" : "mutual TLS, writers " + tls.writers());
    return server.getPort();
  }

  public int port() {
    return server.getPort();
  }

  public Shard shard(int id) {
    Shard shard = shards.get(id);
    if (shard == null) {
      throw new ShardGrpcService.UnknownShardException(
          "shard " + id + " is not hosted by this server (it hosts " + shards.keySet() + ")");
    }
    return shard;
  }

  /** Stops serving (letting calls in flight finish), then commits and closes every shard. */
  @Override
  public void close() throws IOException {
    if (state.getAndSet(State.CLOSED) != State.STARTED) {
      return;
    }
    if (server != null) {
      server.shutdown();
      try {
        if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
          server.shutdownNow();
        }
      } catch (InterruptedException e) {
        server.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    scheduler.shutdownNow();
    IOException failure = null;
    for (Shard shard : shards.values()) {
      try {
        shard.close();
      } catch (IOException e) {
        failure = e;
        LOG.error("closing shard {} failed", shard.id(), e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
