package io.evenkeel.shard.engine;

import io.evenkeel.schemas.shard.AddReplicaRequest;
import io.evenkeel.schemas.shard.AddReplicaResponse;
import io.evenkeel.schemas.shard.ReplicaHeartbeatRequest;
import io.evenkeel.schemas.shard.ReplicaHeartbeatResponse;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc.ReplicationServiceBlockingStub;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.shard.index.IndexFields;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.index.ShardSearcher;
import io.evenkeel.shard.index.StoredRow;
import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.replication.ShardReplicaNode;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.shard.translog.Translog;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.lucene.index.Term;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard's replica copy: a translog the primary forwards every write batch to, and the segment files of the
 * primary's point at its join. It joins its primary on a background thread (retrying until the primary answers): the
 * primary forwards writes from then on, the replica copies the point holding the earlier ones, and is in sync once it
 * searches that point. Promoted, it replays its translog into a primary ({@link #promote}).
 *
 * <p>Its translog holds the writes since it joined; a commit of the copied segments trims the part they hold.
 *
 * <p>How its index follows the primary after the join is its mode, picked by {@link #open} from
 * {@link ShardSettings#logicalReplication()}: {@link SegmentReplicaShard} copies every later point too (the product's
 * mode), {@link LogicalReplicaShard} indexes every forwarded write itself (the baseline). Until a mode has an index of
 * its own, reads, commits and a promotion go through the copied point.
 */
public abstract sealed class ReplicaShard implements ShardCopy permits SegmentReplicaShard, LogicalReplicaShard {
  static final Logger LOG = LoggerFactory.getLogger(ReplicaShard.class);
  private static final long CALL_TIMEOUT_SECONDS = 10;
  private static final long HEARTBEAT_MILLIS = 1_000;
  /** How long a batch waits for the batches before it; past that the replica has lost one and joins again. */
  private static final long ORDER_WAIT_MILLIS = 10_000;

  enum State { JOINING, RECOVERING, IN_SYNC, CLOSED }

  final int id;
  final Path directory;
  final ShardSettings settings;
  private final String primary;
  private final String self;
  private final ReplicationServiceBlockingStub primaryStub;
  final Object lock = new Object();
  final List<ScheduledFuture<?>> schedules = new ArrayList<>();
  private final Thread joiner;
  /** Whether a join thread runs: at most one does. */
  private final AtomicBoolean joining = new AtomicBoolean(true);
  /** The primary dropped this replica while a join was under way: that join must start over, not finish. */
  volatile boolean rejoinRequested;
  /** The translog holds writes of an earlier join, kept until the primary has taken this replica out of sync. */
  private boolean translogStale;
  Translog translog;
  volatile ShardReplicaNode node;
  volatile State state = State.JOINING;
  long term;
  /** The sequence number the next forwarded batch must start at. */
  long nextSeqNo;
  /** Translog generations started at each commit, with the highest sequence number appended before each. */
  private final TreeMap<Long, Long> rolls = new TreeMap<>();
  long committedCoveredSeqNo = -1;
  /** The newest version the primary announced. */
  volatile long announcedVersion = -1;
  /** When each announced version not yet searchable here was announced (nanoTime), by version. */
  final ConcurrentSkipListMap<Long, Long> announcedAt = new ConcurrentSkipListMap<>();

  ReplicaShard(int id, Path directory, ShardSettings settings, String primary, String self, PeerChannels peers) {
    this.id = id;
    this.directory = directory;
    this.settings = settings;
    this.primary = primary;
    this.self = self;
    this.primaryStub = peers.blockingStub(primary);
    this.joiner = new Thread(this::join, "shard-" + id + "-replica-join");
    joiner.setDaemon(true);
  }

  /**
   * Opens a replica of shard {@code id} in {@code directory} following the primary at {@code primary}, in the mode
   * {@code settings} name; {@code self} is this server's replication address, where the primary forwards to.
   */
  public static ReplicaShard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler,
      String primary, String self, PeerChannels peers) throws IOException {
    ReplicaShard replica = settings.logicalReplication()
        ? new LogicalReplicaShard(id, directory, settings, primary, self, peers)
        : new SegmentReplicaShard(id, directory, settings, primary, self, peers);
    replica.resetTranslog();
    replica.joiner.start();
    replica.schedules.add(scheduler.scheduleWithFixedDelay(replica::heartbeat, HEARTBEAT_MILLIS, HEARTBEAT_MILLIS,
        TimeUnit.MILLISECONDS));
    replica.schedules.add(scheduler.scheduleWithFixedDelay(replica::commitQuietly, settings.commitIntervalMs(),
        settings.commitIntervalMs(), TimeUnit.MILLISECONDS));
    if (settings.durability() == Durability.INTERVAL) {
      replica.schedules.add(scheduler.scheduleWithFixedDelay(replica::syncQuietly, settings.syncIntervalMs(),
          settings.syncIntervalMs(), TimeUnit.MILLISECONDS));
    }
    replica.scheduleOwn(scheduler);
    return replica;
  }

  /** A (re)joining replica keeps no translog: the writes before its join reach it as segment files. */
  private void resetTranslog() throws IOException {
    synchronized (lock) {
      if (state == State.CLOSED) {
        // Closed or promoted meanwhile: the directory's translog is no longer this replica's to empty.
        throw new IOException("shard " + id + ": the replica closed while joining");
      }
      if (translog != null) {
        translog.close();
      }
      Path translogDirectory = directory.resolve("translog");
      if (Files.isDirectory(translogDirectory)) {
        try (Stream<Path> files = Files.list(translogDirectory)) {
          for (Path file : files.toList()) {
            Files.delete(file);
          }
        }
      }
      translog = Translog.open(translogDirectory);
      rolls.clear();
      committedCoveredSeqNo = -1;
    }
  }

  private void join() {
    try {
      joinUntilJoined();
    } finally {
      joining.set(false);
    }
  }

  private void joinUntilJoined() {
    long backoff = 100;
    while (state != State.CLOSED) {
      try {
        joinOnce();
        return;
      } catch (StatusRuntimeException | IOException e) {
        LOG.info("shard {}: joining primary {} failed ({}); retrying in {} ms", id, primary, e.getMessage(), backoff);
      } catch (RuntimeException e) {
        LOG.warn("shard {}: joining primary {} failed; retrying in {} ms", id, primary, backoff, e);
      } catch (InterruptedException e) {
        return; // closing
      }
      try {
        Thread.sleep(backoff);
      } catch (InterruptedException e) {
        return;
      }
      backoff = Math.min(5_000, backoff * 2);
    }
  }

  private void joinOnce() throws IOException, InterruptedException {
    // A new join, maybe a new primary or term: the old points' versions mean nothing now.
    announcedAt.clear();
    announcedVersion = -1;
    rejoinRequested = false;
    AddReplicaResponse joined;
    ShardReplicaNode previous;
    Closeable previousOwn;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return; // closed or promoted while joining
      }
      // Under the lock: no forwarded batch is taken before nextSeqNo is known.
      state = State.JOINING;
      joined = primaryStub.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).addReplica(
          AddReplicaRequest.newBuilder().setShard(id).setHost(host(self)).setPort(port(self)).build());
      // Only now, with the primary holding this replica out of its in-sync set, may the old copy and translog go:
      // until then a promotion (of a replica still recorded in sync) finds them whole.
      term = joined.getPrimaryTerm();
      nextSeqNo = joined.getNextSeqNo();
      previous = node;
      node = null;
      previousOwn = takeOwnIndex();
      // Reset below even when closing the old copy fails: the join that retries then finds nothing to close.
      translogStale |= previous != null || previousOwn != null;
    }
    if (previous != null) {
      previous.close();
    }
    if (previousOwn != null) {
      previousOwn.close();
    }
    synchronized (lock) {
      if (translogStale) {
        resetTranslog(); // throws when closed or promoted meanwhile
        translogStale = false;
      }
      state = State.RECOVERING;
      lock.notifyAll();
    }
    Files.createDirectories(directory);
    ShardReplicaNode started = new ShardReplicaNode(id, FSDirectory.open(directory.resolve("index")),
        ShardSearcher.factory(), primaryStub);
    try {
      started.start(joined.getPrimaryTerm(), -1);
      started.newPoint(joined.getPrimaryTerm(), joined.getVersion(), joined.getNextSeqNo() - 1);
    } catch (IOException | RuntimeException e) {
      // Closed, or it keeps Lucene's write lock and every later join fails on it.
      try {
        started.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    synchronized (lock) {
      if (state == State.CLOSED) {
        started.close(); // closed while joining: the directory is someone else's now
        return;
      }
      node = started;
    }
    LOG.info("shard {}: joined primary {} in term {} at seq no {}; copying version {}", id, primary,
        joined.getPrimaryTerm(), joined.getNextSeqNo(), joined.getVersion());
    afterJoin(started, joined.getVersion());
    heartbeat();
  }

  private void heartbeat() {
    ShardReplicaNode current = node;
    if ((current == null && !indexesItself()) || state == State.CLOSED) {
      return;
    }
    try {
      long searching = searchingVersion(current);
      ReplicaHeartbeatResponse answer = primaryStub.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .replicaHeartbeat(ReplicaHeartbeatRequest.newBuilder().setShard(id).setHost(host(self))
              .setPort(port(self)).setPrimaryTerm(term).setSearchingVersion(searching).build());
      if (current != null && answer.getVersion() > searching && announcedVersion < answer.getVersion()) {
        // A missed announcement: copy the primary's point now.
        current.newNRTPoint(term, answer.getVersion());
      }
      synchronized (lock) {
        // Only between joins: a close, a promotion or a join under way while the call was out keeps its state.
        if (state == State.IN_SYNC || state == State.RECOVERING) {
          state = answer.getInSync() ? State.IN_SYNC : State.RECOVERING;
        }
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
        LOG.warn("shard {}: primary {} no longer forwards to this replica ({}); joining again", id, primary,
            e.getStatus().getDescription());
        rejoin();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("shard {}: heartbeat failed", id, e);
    }
  }

  private void rejoin() {
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      if (!joining.compareAndSet(false, true)) {
        rejoinRequested = true; // a join is under way: one that waits for its copy gives up and starts again
        return;
      }
      state = State.JOINING;
    }
    Thread thread = new Thread(this::join, "shard-" + id + "-replica-rejoin");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Appends a forwarded batch to the translog, in sequence order: a batch that arrives before the ones preceding it
   * waits for them. Throws {@link IllegalStateException} for a batch of another term, or when a preceding batch never
   * comes (the replica then joins again).
   */
  public void replicate(long batchTerm, long firstSeqNo, long lastSeqNo, byte[] batch) throws IOException {
    synchronized (lock) {
      while (state == State.JOINING) {
        waitOn("to join its primary");
      }
      if (batchTerm != term) {
        throw new IllegalStateException("shard " + id + ": batch of term " + batchTerm + " sent to a replica in term "
            + term);
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ORDER_WAIT_MILLIS);
      while (firstSeqNo > nextSeqNo && state != State.CLOSED) {
        if (System.nanoTime() > deadline) {
          rejoin();
          throw new IllegalStateException("shard " + id + ": seq nos " + nextSeqNo + ".." + (firstSeqNo - 1)
              + " never arrived; the replica joins again");
        }
        waitOn("for seq no " + nextSeqNo);
      }
      if (state == State.CLOSED) {
        throw new AlreadyClosedException("shard " + id + "'s replica is closed");
      }
      if (lastSeqNo < nextSeqNo) {
        return; // already appended (a retried forward) or before the join
      }
      translog.append(firstSeqNo, batch);
      appended(firstSeqNo, batch);
      nextSeqNo = lastSeqNo + 1;
      lock.notifyAll();
    }
    if (settings.durability() == Durability.REQUEST) {
      translog.sync();
    }
  }

  private void waitOn(String what) {
    try {
      lock.wait(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting " + what, e);
    }
  }

  /** The primary announced a point. */
  public abstract void newPoint(long pointTerm, long version, long coveredSeqNo) throws IOException;

  /** The primary merged a segment that a later point will name. */
  public abstract void preCopyMerge(long pointTerm, Map<String, FileMetaData> files)
      throws IOException, InterruptedException;

  private ShardReplicaNode started() {
    ShardReplicaNode current = node;
    if (current == null) {
      throw new ReplicaUnavailableException("shard " + id + "'s replica on this server is joining its primary "
          + primary + " and has nothing to search yet");
    }
    return current;
  }

  /** Thrown by reads of a replica that has not copied its primary's point yet. */
  public static final class ReplicaUnavailableException extends RuntimeException {
    ReplicaUnavailableException(String message) {
      super(message);
    }
  }

  @Override
  public int id() {
    return id;
  }

  /** The primary this replica follows ("host:port"). */
  public String primary() {
    return primary;
  }

  @Override
  public ReferenceManager<IndexSearcher> searchers() {
    return started().getSearcherManager();
  }

  /** The rows as of the point this replica searches (a primary's lookups also see unrefreshed writes). */
  @Override
  public List<byte[]> fetch(List<RowKey> keys) throws IOException {
    ReferenceManager<IndexSearcher> searchers = searchers();
    IndexSearcher searcher = searchers.acquire();
    try {
      List<byte[]> rows = new ArrayList<>(keys.size());
      for (StoredRow row : ShardIndex.lookupAll(searcher, keys)) {
        if (row != null && !row.deleted()) {
          rows.add(row.source());
        }
      }
      return rows;
    } finally {
      searchers.release(searcher);
    }
  }

  /** Waits (up to 10 s) until this replica searches the newest point its primary announced. */
  @Override
  public void refresh() throws IOException {
    ShardReplicaNode current = started();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (current.getCurrentSearchingVersion() < announcedVersion && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * The replica's visibility lag: how long the oldest point announced but not yet searchable here has waited, in ms;
   * 0 when this replica searches the newest announced point.
   */
  public long lagMillis() throws IOException {
    ShardReplicaNode current = node;
    if (current == null) {
      return 0;
    }
    announcedAt.headMap(current.getCurrentSearchingVersion(), true).clear();
    Map.Entry<Long, Long> oldest = announcedAt.firstEntry();
    return oldest == null ? 0 : (System.nanoTime() - oldest.getValue()) / 1_000_000;
  }

  @Override
  public ShardStats stats() throws IOException {
    ShardStats.Builder stats = ShardStats.newBuilder().setShard(id).setPrimaryTerm(term)
        .setRole(state == State.JOINING ? "JOINING" : state == State.IN_SYNC ? "REPLICA" : "REPLICA_RECOVERING")
        .setReplicaLagMs(lagMillis())
        .addAllHotAttributes(new TreeSet<>(settings.hotAttributes().keys()))
        .setTranslogBytes(translog.sizeInBytes())
        .setTranslogGeneration(translog.currentGeneration())
        .setBytes(indexBytes());
    synchronized (lock) {
      stats.setMaxSeqNo(nextSeqNo - 1).setCommittedSeqNo(committedCoveredSeqNo);
    }
    addOwnStats(stats);
    if (node != null || indexesItself()) {
      ReferenceManager<IndexSearcher> searchers = searchers();
      IndexSearcher searcher = searchers.acquire();
      try {
        int tombstones = searcher.count(new TermQuery(new Term(IndexFields.TOMBSTONE, "T")));
        stats.setDocs(searcher.count(new MatchAllDocsQuery()) - tombstones).setTombstones(tombstones)
            .setSegments(searcher.getIndexReader().leaves().size());
      } finally {
        searchers.release(searcher);
      }
    }
    return stats.build();
  }

  /** The size of the index files copied here (and of any still being copied). */
  long indexBytes() {
    ShardReplicaNode copying = node;
    return copying != null ? ShardIndex.sizeInBytes(copying.getDirectory()) : 0;
  }

  /**
   * Commits the copied segments and drops the translog generations they hold: each commit starts a generation, and a
   * generation goes once a commit covers the highest sequence number appended before the next one started.
   */
  public void commit() throws IOException {
    ShardReplicaNode current = node;
    if (current == null) {
      return;
    }
    long covered = current.searchingCoveredSeqNo();
    current.commit();
    synchronized (lock) {
      rolls.put(translog.rollGeneration(), nextSeqNo - 1);
      committedCoveredSeqNo = Math.max(committedCoveredSeqNo, covered);
      Long trimBefore = null;
      for (Map.Entry<Long, Long> roll : rolls.entrySet()) {
        if (roll.getValue() <= committedCoveredSeqNo) {
          trimBefore = roll.getKey();
        }
      }
      if (trimBefore != null) {
        translog.deleteGenerationsBefore(trimBefore);
        rolls.headMap(trimBefore).clear();
      }
    }
  }

  private void commitQuietly() {
    try {
      commit();
    } catch (IOException | RuntimeException e) {
      LOG.error("shard {}: replica commit failed", id, e);
    }
  }

  private void syncQuietly() {
    try {
      translog.sync();
    } catch (IOException | RuntimeException e) {
      LOG.error("shard {}: replica translog sync failed", id, e);
    }
  }

  /**
   * Turns this replica into the primary of {@code newTerm}: it stops taking forwarded writes, commits what it
   * copied, and opens the directory as a primary that replays its translog above what that commit holds (every write
   * acknowledged since; older ones are skipped by their sequence numbers, and any left by their versions). Only an
   * in-sync replica holds every acknowledged write.
   */
  public Shard promote(long newTerm, ScheduledExecutorService scheduler, Replicas replicas) throws IOException {
    ShardReplicaNode current = started();
    long searchingVersion = current.getCurrentSearchingVersion();
    // The point it searches, committed below, holds every write up to here: the replay starts above it.
    long covered = current.searchingCoveredSeqNo();
    long lastSeqNo;
    synchronized (lock) {
      state = State.CLOSED;
      lock.notifyAll();
      lastSeqNo = nextSeqNo - 1;
    }
    closeSchedules();
    current.commit();
    node = null;
    current.close();
    translog.close();
    LOG.info("shard {}: replica promoted to primary in term {} (searching version {}, seq no {})", id, newTerm,
        searchingVersion, lastSeqNo);
    return Shard.open(id, directory, settings, scheduler, new PrimaryTerm(newTerm, searchingVersion + 1), replicas,
        lastSeqNo, covered);
  }

  /** Whether a join is under way: after {@link #close} it may still write files into the directory until it ends. */
  public boolean joinUnderWay() {
    return joining.get();
  }

  void closeSchedules() {
    // The joiner sees the CLOSED state within a step; interrupting it could close Lucene's lock channel mid-copy.
    schedules.forEach(s -> s.cancel(false));
  }

  @Override
  public void close() throws IOException {
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      lock.notifyAll();
    }
    closeSchedules();
    ShardReplicaNode current = node;
    node = null;
    try {
      closeOwnIndex();
      if (current != null) {
        current.commit();
        current.close();
      }
    } finally {
      translog.close();
    }
  }

  // A mode that keeps an index of its own joins in here; a replica has none by default.

  /** Schedules the mode's own background work, cancelled with the replica's. */
  void scheduleOwn(ScheduledExecutorService scheduler) {}

  /** At a (re)join, under the lock: drops the index of its own, answering it to close (null when none). */
  Closeable takeOwnIndex() {
    return null;
  }

  /** A join's copy is started ({@code copier}, of the primary's point {@code version}), before its heartbeat. */
  void afterJoin(ShardReplicaNode copier, long version) throws IOException, InterruptedException {}

  /** Whether this replica searches an index of its own instead of the point it copied. */
  boolean indexesItself() {
    return false;
  }

  /** The version its heartbeat reports: the point {@code current} searches (null when it indexes itself). */
  long searchingVersion(ShardReplicaNode current) throws IOException {
    return current.getCurrentSearchingVersion();
  }

  /** A forwarded batch was appended to the translog, under the lock. */
  void appended(long firstSeqNo, byte[] batch) throws IOException {}

  /** Adds what the index of its own reports to {@link #stats}. */
  void addOwnStats(ShardStats.Builder stats) {}

  /** At {@link #close}, after the CLOSED state and before the copied point closes: closes the index of its own. */
  void closeOwnIndex() throws IOException {}

  private static String host(String address) {
    return address.substring(0, address.lastIndexOf(':'));
  }

  private static int port(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }
}
