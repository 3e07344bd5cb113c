package io.evenkeel.shard.server;

import io.evenkeel.cluster.lifecycle.Lifecycle;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.shard.cluster.ShardHolder;
import io.evenkeel.shard.engine.ReplicaShard;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardCopy;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.grpc.CallExecutors;
import io.evenkeel.shard.grpc.FairReads;
import io.evenkeel.shard.grpc.ReadPartyInterceptor;
import io.evenkeel.shard.grpc.ReplicationGrpcService;
import io.evenkeel.shard.grpc.ShardGrpcService;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.replication.InSyncSet;
import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.search.SegmentAggregates;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's shard copies, each in {@code <data dir>/shard-<id>}, served over gRPC: primaries, which take writes, and
 * replicas of shards whose primary is on another server ({@link ReplicaShard}).
 */
public final class ShardServer implements ShardHolder, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardServer.class);
  /** Large write batches exceed gRPC's default 4 MiB. */
  static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
  public static final String MEMORY_FLAG = "--read-memory";
  public static final String REQUEST_MEMORY_FLAG = "--request-read-memory";

  /** How often failed primaries are looked for and reopened. */
  private static final long REOPEN_EVERY_MS = 2_000;
  /** How soon the deletion of a released copy's files is tried again. */
  private static final long RELEASE_RETRY_MS = 200;
  /** How often the background re-indexing runs, a tenth of its rate each time. */
  private static final long REINDEX_EVERY_MS = 100;
  /** Primaries closed after their index writer failed, with their term, until they open again. */
  private final Map<Integer, Long> reopening = new ConcurrentHashMap<>();
  /** Where the next re-indexing tick starts among the shard ids; only that tick touches it. */
  private int reindexFrom;

  private final Lifecycle lifecycle = new Lifecycle("shard server");
  private final Path dataDirectory;
  private final Set<Integer> shardIds;
  private final ShardSettings settings;
  /** Threads for writes, and as many for reads: enough for a server's shards to be busy at once. */
  private final CallExecutors callExecutors = new CallExecutors(Math.max(8, 4 * Runtime.getRuntime()
      .availableProcessors()));
  /** Searches and fetches run in fair turns between the parties that asked for them. */
  private final FairReads fairReads = FairReads.forThisMachine();
  /** What searches and fetches may hold: each call, and all of them together. */
  private volatile MemoryBudget readMemory = MemoryBudget.ofHeap(MEMORY_FLAG, REQUEST_MEMORY_FLAG);
  /** Each segment's groups of recent aggregations, for the next that asks the same. */
  private volatile SegmentAggregates aggregates = new SegmentAggregates(SegmentAggregates.DEFAULT_BYTES);
  private final InetSocketAddress address;
  private final ServerTls tls;
  private final Map<Integer, String> replicaOf;
  private final int requiredCopies;
  private final Map<Integer, ShardCopy> shards = new ConcurrentHashMap<>();
  private final PeerChannels peers;
  private volatile BiFunction<Integer, Long, InSyncSet> inSyncSets = (shard, term) -> InSyncSet.UNRECORDED;
  /**
   * Who may join a primary here as a replica: without a cluster state, any caller (replicas are configured on their
   * own servers; with {@code --tls} only the cluster's certificates reach the port).
   */
  private volatile BiPredicate<Integer, String> replicasAdmitted = (shard, address) -> true;
  /** Whether a cluster member directs this server: it then reopens failed primaries, in a new term. */
  private volatile boolean clustered;
  private String self;
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
    lifecycle.start();
    for (int id : new TreeSet<>(shardIds)) {
      shards.put(id, Shard.open(id, dataDirectory.resolve("shard-" + id), settings, scheduler, PrimaryTerm.COMMITTED,
          new Replicas(id, peers, requiredCopies), 0));
    }
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address,
            tls == null ? InsecureServerCredentials.create() : tls.credentials())
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .callExecutor(callExecutors);
    ReplicationGrpcService replication = new ReplicationGrpcService(this::primary, this::replica,
        (shard, address) -> replicasAdmitted.test(shard, address));
    ShardGrpcService shardService = new ShardGrpcService(this::shard, readMemory, fairReads, aggregates);
    ReadPartyInterceptor parties = new ReadPartyInterceptor();
    if (tls == null) {
      builder.addService(ServerInterceptors.intercept(shardService, parties));
      builder.addService(replication);
    } else {
      WriterCheck check = new WriterCheck(tls.writers(), tls.peers());
      builder.addService(ServerInterceptors.intercept(shardService, parties, check));
      builder.addService(ServerInterceptors.intercept(replication, check));
    }
    server = builder.build().start();
    // Replicas join their primaries at this server's bound address, which the primaries forward to.
    self = address.getHostString() + ":" + server.getPort();
    for (Map.Entry<Integer, String> replica : new TreeMap<>(replicaOf).entrySet()) {
      int id = replica.getKey();
      shards.put(id, ReplicaShard.open(id, dataDirectory.resolve("shard-" + id), settings, scheduler,
          replica.getValue(), self, peers));
    }
    scheduler.scheduleWithFixedDelay(this::reopenFailedShards, REOPEN_EVERY_MS, REOPEN_EVERY_MS,
        TimeUnit.MILLISECONDS);
    if (settings.reindexRate() > 0) {
      scheduler.scheduleWithFixedDelay(this::reindexUnindexed, REINDEX_EVERY_MS, REINDEX_EVERY_MS,
          TimeUnit.MILLISECONDS);
    }
    LOG.info("serving shards {} on {}:{} from {} ({}; {})", shards.keySet(), address.getHostString(),
        server.getPort(), dataDirectory, settings, tls == null ? "plaintext" : "mutual TLS, writers " + tls.writers());
    return server.getPort();
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public String address() {
    return self;
  }

  /** Keeps the groups of segments' aggregations in {@code kept} ({@link SegmentAggregates}); before start. */
  public void keptAggregations(SegmentAggregates kept) {
    if (!lifecycle.isLatent()) {
      throw new IllegalStateException("the kept aggregations are set before the server starts");
    }
    this.aggregates = kept;
  }

  /** Bounds what searches and fetches hold ({@link #MEMORY_FLAG}, {@link #REQUEST_MEMORY_FLAG}); before start. */
  public void readMemory(MemoryBudget budget) {
    if (!lifecycle.isLatent()) {
      throw new IllegalStateException("the read memory budget is set before the server starts");
    }
    this.readMemory = budget;
  }

  @Override
  public void admitReplicas(BiPredicate<Integer, String> assigned) {
    this.replicasAdmitted = assigned;
  }

  @Override
  public void recordInSyncSets(BiFunction<Integer, Long, InSyncSet> inSyncSets) {
    this.inSyncSets = inSyncSets;
    this.clustered = true;
  }

  @Override
  public long sequenceNumberOf(String server, int shard) throws IOException {
    try {
      return peers.shardStub(server).withDeadlineAfter(2, TimeUnit.SECONDS)
          .stats(StatsRequest.newBuilder().setShard(shard).build()).getMaxSeqNo();
    } catch (StatusRuntimeException e) {
      throw new IOException(server + " did not tell shard " + shard + "'s sequence number: " + e.getStatus(), e);
    }
  }

  private Replicas replicasOf(int shard, long term) {
    return new Replicas(shard, peers, requiredCopies, inSyncSets.apply(shard, term));
  }

  /** The copy of {@code shard} this server holds, or null. */
  public ShardCopy copy(int shard) {
    return shards.get(shard);
  }

  @Override
  public boolean holds(int shard) {
    return shards.containsKey(shard);
  }

  /**
   * Holds {@code shard}'s primary in {@code term}: promotes this server's replica, or opens the shard's directory as a
   * primary. A primary already held is kept.
   */
  @Override
  public synchronized void holdPrimary(int shard, long term) throws IOException {
    ensureOpen();
    ShardCopy held = shards.get(shard);
    if (held instanceof Shard) {
      return;
    }
    Replicas replicas = replicasOf(shard, term);
    try {
      // Before the first write: no replica the state lists is awaited by this primary yet.
      replicas.inSyncSet().reset();
    } catch (Exception e) {
      throw new IOException("shard " + shard + ": clearing the in-sync set for term " + term + " failed", e);
    }
    if (held instanceof ReplicaShard replica) {
      // Removed first, and closed if the promotion fails: the next attempt opens the directory as a primary,
      // replaying the translog the replica kept.
      shards.remove(shard);
      try {
        shards.put(shard, replica.promote(term, scheduler, replicas));
      } catch (IOException | RuntimeException e) {
        closeQuietly(replica);
        throw e;
      }
      return;
    }
    shards.put(shard, Shard.open(shard, dataDirectory.resolve("shard-" + shard), settings, scheduler,
        new PrimaryTerm(term, -1), replicas, 0));
    LOG.info("shard {}: primary in term {}", shard, term);
  }

  /**
   * A primary whose index writer Lucene closed for good (an I/O error in a flush or merge: a full disk, say) cannot
   * take writes; every acknowledged write is in its last commit or its translog, so it is closed and opened again
   * from them, retried until that works (the disk has room again); in a cluster the member does that, in a new term,
   * as for a restart. Meanwhile writes to it answer NOT_FOUND, which writers retry.
   */
  private synchronized void reopenFailedShards() {
    if (lifecycle.isClosed()) {
      return;
    }
    for (Map.Entry<Integer, ShardCopy> held : Map.copyOf(shards).entrySet()) {
      if (held.getValue() instanceof Shard primary && primary.failure() != null) {
        LOG.error("shard {}: its index writer failed ({}); reopening it from its last commit and translog",
            held.getKey(), primary.failure().toString());
        shards.remove(held.getKey());
        closeQuietly(primary);
        if (!clustered) {
          reopening.put(held.getKey(), primary.term());
        }
      }
    }
    for (Map.Entry<Integer, Long> failed : Map.copyOf(reopening).entrySet()) {
      try {
        holdPrimary(failed.getKey(), failed.getValue());
        reopening.remove(failed.getKey());
        LOG.info("shard {}: reopened after its index writer failed", failed.getKey());
      } catch (IOException | RuntimeException e) {
        LOG.warn("shard {}: reopening failed, retrying in {} ms: {}", failed.getKey(), REOPEN_EVERY_MS,
            e.toString());
      }
    }
  }

  private static void closeQuietly(ShardCopy copy) {
    try {
      copy.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("shard {}: closing a copy that failed to change role failed too", copy.id(), e);
    }
  }

  private void ensureOpen() throws IOException {
    if (lifecycle.isClosed()) {
      throw new IOException("the shard server is closing");
    }
  }

  /**
   * Holds a replica of {@code shard} following the primary at {@code primary}: a primary held here is closed first
   * (it was demoted: its directory is copied over from the new primary where they differ), a replica following
   * another server is reopened.
   */
  @Override
  public synchronized void holdReplica(int shard, String primary) throws IOException {
    ensureOpen();
    ShardCopy held = shards.get(shard);
    if (held instanceof ReplicaShard replica && replica.primary().equals(primary)) {
      return;
    }
    if (held != null) {
      shards.remove(shard);
      held.close();
    }
    shards.put(shard, ReplicaShard.open(shard, dataDirectory.resolve("shard-" + shard), settings, scheduler, primary,
        self, peers));
  }

  /**
   * One tick of the background re-indexing: the primaries, from the one after the last tick's, index again rows
   * written before a key they lack was listed hot, a tick's share of {@link ShardSettings#reindexRate} between them.
   */
  private void reindexUnindexed() {
    if (settings.hotAttributes().keys().isEmpty()) {
      return; // nothing is listed, so no row lacks a key: the common case, spared the walk over the shards
    }
    int budget = (int) Math.max(1, settings.reindexRate() * REINDEX_EVERY_MS / 1_000);
    List<Integer> ids = new ArrayList<>(new TreeSet<>(shards.keySet()));
    reindexFrom++; // each primary goes first in turn
    for (int i = 0; i < ids.size() && budget > 0; i++) {
      int id = ids.get(Math.floorMod(reindexFrom + i, ids.size()));
      if (shards.get(id) instanceof Shard primary) {
        try {
          budget -= primary.reindexUnindexed(budget);
        } catch (IOException | RuntimeException e) {
          LOG.warn("shard {}: indexing rows again for the hot attribute keys failed; retrying: {}", id, e.toString());
        }
      }
    }
  }

  /**
   * Stops holding any copy of {@code shard} and deletes its files: the cluster keeps its copies elsewhere (the copy
   * was moved, or unassigned), and a copy assigned here again later copies what it lacks anyway.
   */
  @Override
  public synchronized void release(int shard) throws IOException {
    ShardCopy held = shards.remove(shard);
    if (held != null) {
      try {
        held.close();
      } finally {
        deleteReleased(shard, held);
      }
    }
  }

  /**
   * Deletes a released copy's files once nothing writes them: a replica's join under way copies files until it sees
   * the copy closed, however long the copy takes, so the deletion waits for it; a deletion that fails is tried again.
   * Nothing is deleted once the shard is held here again.
   */
  private void deleteReleased(int shard, ShardCopy released) {
    synchronized (this) {
      if (shards.containsKey(shard)) {
        return;
      }
      if (!(released instanceof ReplicaShard replica && replica.joinUnderWay())) {
        try {
          IOUtils.rm(dataDirectory.resolve("shard-" + shard));
          LOG.info("shard {}: copy released and its files deleted", shard);
          return;
        } catch (IOException e) {
          LOG.warn("shard {}: deleting the released copy's files failed; retrying: {}", shard, e.toString());
        }
      }
    }
    try {
      scheduler.schedule(() -> deleteReleased(shard, released), RELEASE_RETRY_MS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.info("shard {}: the server stopped before the released copy's files could be deleted", shard);
    }
  }

  public ShardCopy shard(int id) {
    ShardCopy shard = shards.get(id);
    if (shard == null) {
      throw new ShardGrpcService.UnknownShardException(
          "shard " + id + " is not hosted by this server (it hosts " + new TreeSet<>(shards.keySet()) + ")");
    }
    return shard;
  }

  /** The primary of {@code id} on this server; {@link ReplicationGrpcService.RoleMismatchException} when none. */
  public Shard primary(int id) {
    if (shards.get(id) instanceof Shard primary) {
      return primary;
    }
    throw new ReplicationGrpcService.RoleMismatchException("this server holds no primary of shard " + id);
  }

  /** The replica of {@code id} on this server; {@link ReplicationGrpcService.RoleMismatchException} when none. */
  public ReplicaShard replica(int id) {
    if (shards.get(id) instanceof ReplicaShard replica) {
      return replica;
    }
    throw new ReplicationGrpcService.RoleMismatchException("this server holds no replica of shard " + id);
  }

  /**
   * Promotes this server's replica of {@code id} to primary in {@code term}; writers must then write here. Its
   * replicas join it as they learn of the change.
   */
  public synchronized Shard promote(int id, long term) throws IOException {
    Shard promoted = replica(id).promote(term, scheduler, replicasOf(id, term));
    shards.put(id, promoted);
    return promoted;
  }

  /** Stops serving (letting calls in flight finish), then commits and closes every shard. */
  @Override
  public void close() throws IOException {
    if (!lifecycle.closeStarted()) {
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
    callExecutors.close();
    fairReads.close();
    // Not shutdownNow: interrupting a refresh or commit in the middle of its I/O closes the IndexWriter for good
    // (ClosedByInterruptException), and the shard could then not commit on close. Running tasks finish; no new ones.
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("shard maintenance still running after 30 s; closing the shards anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    IOException failure = null;
    // Under the lock that changes of role take: none is half done, and none starts after this (ensureOpen).
    synchronized (this) {
      for (ShardCopy shard : shards.values()) {
        try {
          shard.close();
        } catch (IOException e) {
          failure = e;
          LOG.error("closing shard {} failed", shard.id(), e);
        }
      }
    }
    peers.close();
    if (failure != null) {
      throw failure;
    }
  }
}
