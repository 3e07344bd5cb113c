package io.evenkeel.shard.server;

import io.evenkeel.shard.engine.ReplicaShard;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardCopy;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.grpc.ReplicationGrpcService;
import io.evenkeel.shard.grpc.ShardGrpcService;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.Replicas;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's shard copies, each in {@code <data dir>/shard-<id>}, served over gRPC: primaries, which take writes, and
 * replicas of shards whose primary is on another server ({@link ReplicaShard}).
 */
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
  private final Map<Integer, String> replicaOf;
  private final int requiredCopies;
  private final Map<Integer, ShardCopy> shards = new ConcurrentHashMap<>();
  private final PeerChannels peers;
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
    this(dataDirectory, shardIds, Map.of(), Replicas.ALL_IN_SYNC, settings, address, tls);
  }

  /**
   * @param shardIds the shards whose primary this server holds
   * @param replicaOf the shards this server holds a replica of, each with its primary's address ("host:port")
   * @param requiredCopies the copies a write needs before it is acknowledged, or {@link Replicas#ALL_IN_SYNC}
   */
  public ShardServer(Path dataDirectory, Set<Integer> shardIds, Map<Integer, String> replicaOf, int requiredCopies,
      ShardSettings settings, InetSocketAddress address, ServerTls tls) {
    this.tls = tls;
    if (shardIds.isEmpty() && replicaOf.isEmpty()) {
      throw new IllegalArgumentException("a shard server must host at least one shard copy");
    }
    for (int shard : replicaOf.keySet()) {
      if (shardIds.contains(shard)) {
        throw new IllegalArgumentException("shard " + shard + " cannot have its primary and a replica on one server");
      }
    }
    this.replicaOf = Map.copyOf(replicaOf);
    try {
      this.peers = tls == null ? new PeerChannels() : new PeerChannels(tls.peerCredentials());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read this server's TLS files for its peers: " + e.getMessage(), e);
    }
    this.requiredCopies = requiredCopies;
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
      shards.put(id, Shard.open(id, dataDirectory.resolve("shard-" + id), settings, scheduler, PrimaryTerm.COMMITTED,
          new Replicas(id, peers, requiredCopies), 0));
    }
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address,
            tls == null ? InsecureServerCredentials.create() : tls.credentials())
        .maxInboundMessageSize(MAX_MESSAGE_BYTES);
    ReplicationGrpcService replication = new ReplicationGrpcService(this::primary, this::replica);
    if (tls == null) {
      builder.addService(new ShardGrpcService(this::shard));
      builder.addService(replication);
    } else {
      WriterCheck check = new WriterCheck(tls.writers(), tls.peers());
      builder.addService(ServerInterceptors.intercept(new ShardGrpcService(this::shard), check));
      builder.addService(ServerInterceptors.intercept(replication, check));
    }
    server = builder.build().start();
    // Replicas join their primaries at this server's bound address, which the primaries forward to.
    String self = address.getHostString() + ":" + server.getPort();
    for (Map.Entry<Integer, String> replica : new TreeMap<>(replicaOf).entrySet()) {
      int id = replica.getKey();
      shards.put(id, ReplicaShard.open(id, dataDirectory.resolve("shard-" + id), settings, scheduler,
          replica.getValue(), self, peers));
    }
    LOG.info("serving shards {} on {}:{} from {} ({}; {})", shards.keySet(), address.getHostString(),
        server.getPort(), dataDirectory, settings, tls == null ? "plaintext" : "mutual TLS, writers " + tls.writers());
    return server.getPort();
  }

  public int port() {
    return server.getPort();
  }

  public ShardCopy shard(int id) {
    ShardCopy shard = shards.get(id);
    if (shard == null) {
      throw new ShardGrpcService.UnknownShardException(
          "shard " + id + " is not hosted by this server (it hosts " + new TreeSet<>(shards.keySet()) + ")");
    }
    return shard;
  }

  /** The primary of {@code id} on this server; {@link IllegalStateException} when this server has none. */
  public Shard primary(int id) {
    if (shards.get(id) instanceof Shard primary) {
      return primary;
    }
    throw new IllegalStateException("this server holds no primary of shard " + id);
  }

  /** The replica of {@code id} on this server; {@link IllegalStateException} when this server has none. */
  public ReplicaShard replica(int id) {
    if (shards.get(id) instanceof ReplicaShard replica) {
      return replica;
    }
    throw new IllegalStateException("this server holds no replica of shard " + id);
  }

  /**
   * Promotes this server's replica of {@code id} to primary in {@code term}; writers must then write here. Its
   * replicas join it as they learn of the change.
   */
  public Shard promote(int id, long term) throws IOException {
    Shard promoted = replica(id).promote(term, scheduler, new Replicas(id, peers, requiredCopies));
    shards.put(id, promoted);
    return promoted;
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
    for (ShardCopy shard : shards.values()) {
      try {
        shard.close();
      } catch (IOException e) {
        failure = e;
        LOG.error("closing shard {} failed", shard.id(), e);
      }
    }
    peers.close();
    if (failure != null) {
      throw failure;
    }
  }
}
