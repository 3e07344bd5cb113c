package io.evenkeel.shard.engine;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * A shard's replica copy: a translog the primary forwards every write batch to, and segment files copied from the
 * primary's points (it never indexes). It joins its primary on a background thread (retrying until the primary
 * answers): the primary forwards writes from then on, the replica copies the point holding the earlier ones, and is
 * in sync once it searches that point. Promoted, it replays its translog into a primary ({@link #promote}).
 *
 * <p>Its translog holds the writes since it joined; a commit of the copied segments trims the part they hold.
 *
 * <p>With {@link ShardSettings#logicalReplication()} the replica copies files only once, when it joins; then it opens
 * an index writer on them, applies the writes forwarded since the join and indexes every later one itself (Elastic-
 * search's way, kept to compare against).
 */
public final class ReplicaShard implements ShardCopy {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaShard.class);
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final long CALL_TIMEOUT_SECONDS = 10;
  private static final long HEARTBEAT_MILLIS = 1_000;
  /** How long a batch waits for the batches before it; past that the replica has lost one and joins again. */
  private static final long ORDER_WAIT_MILLIS = 10_000;

  private enum State { JOINING, RECOVERING, IN_SYNC, CLOSED }

  private final int id;
  private final Path directory;
  private final ShardSettings settings;
  private final String primary;
  private final String self;
  private final ReplicationServiceBlockingStub primaryStub;
  private final Object lock = new Object();
  private final List<ScheduledFuture<?>> schedules = new ArrayList<>();
  private final Thread joiner;
  /** Whether a join thread runs: at most one does. */
  private final AtomicBoolean joining = new AtomicBoolean(true);
  private Translog translog;
  private volatile ShardReplicaNode node;
  /** Logical replication, once the files of the join's point are copied: the replica's own index. */
  private volatile ShardIndex applied;
  /** The primary's point at this replica's join: what its heartbeat reports once it applies writes itself. */
  private volatile long joinVersion;
  /** When the oldest write applied to {@link #applied} but not yet searchable was applied (nanoTime; 0: none). */
  private volatile long firstUnrefreshedNanos;
  private volatile State state = State.JOINING;
  private long term;
  /** The sequence number the next forwarded batch must start at. */
  private long nextSeqNo;
  /** Translog generations started at each commit, with the highest sequence number appended before each. */
  private final TreeMap<Long, Long> rolls = new TreeMap<>();
  private long committedCoveredSeqNo = -1;
  /** The newest version the primary announced. */
  private volatile long announcedVersion = -1;
  /** When each announced version not yet searchable here was announced (nanoTime), by version. */
  private final ConcurrentSkipListMap<Long, Long> announcedAt = new ConcurrentSkipListMap<>();

  private ReplicaShard(int id, Path directory, ShardSettings settings, String primary, String self,
      PeerChannels peers) {
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
   * Opens a replica of shard {@code id} in {@code directory} following the primary at {@code primary}; {@code self}
   * is this server's replication address, where the primary forwards to.
   */
  public static ReplicaShard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler,
      String primary, String self, PeerChannels peers) throws IOException {
    ReplicaShard replica = new ReplicaShard(id, directory, settings, primary, self, peers);
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
    if (settings.logicalReplication()) {
      replica.schedules.add(scheduler.scheduleWithFixedDelay(replica::refreshAppliedQuietly,
          settings.refreshIntervalMs(), settings.refreshIntervalMs(), TimeUnit.MILLISECONDS));
    }
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
    AddReplicaResponse joined;
    ShardReplicaNode previous;
    ShardIndex previouslyApplied;
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
      previouslyApplied = applied;
      node = null;
      applied = null;
    }
    if (previous != null) {
      previous.close();
    }
    if (previouslyApplied != null) {
      previouslyApplied.close();
    }
    synchronized (lock) {
      if (previous != null || previouslyApplied != null) {
        resetTranslog(); // throws when closed or promoted meanwhile
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
    joinVersion = joined.getVersion();
    synchronized (lock) {
      if (state == State.CLOSED) {
        started.close(); // closed while joining: the directory is someone else's now
        return;
      }
      node = started;
    }
    LOG.info("shard {}: joined primary {} in term {} at seq no {}; copying version {}", id, primary,
        joined.getPrimaryTerm(), joined.getNextSeqNo(), joined.getVersion());
    if (settings.logicalReplication()) {
      applyFromNowOn(started);
    }
    heartbeat();
  }

  /**
   * Logical replication: once the join's point is copied, opens an index writer on it, applies the writes forwarded
   * since the join (in the translog) and from then on indexes every forwarded write.
   */
  private void applyFromNowOn(ShardReplicaNode copier) throws IOException, InterruptedException {
    while (copier.getCurrentSearchingVersion() < joinVersion) {
      if (state == State.CLOSED) {
        return;
      }
      Thread.sleep(20);
    }
    synchronized (lock) {
      copier.commit();
      node = null;
      copier.close();
      ShardIndex index = new ShardIndex(directory.resolve("index"), id, settings.ramBufferMb(),
          settings.hotAttributes(), new PrimaryTerm(term, -1), files -> {});
      long[] replayed = new long[1];
      translog.replay(Translog.OLDEST, record -> {
        try {
          replayed[0] += apply(index, record.firstSeqNo(), record.payload());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      index.refresh();
      applied = index;
      LOG.info("shard {}: logical replica indexes from seq no {} on ({} forwarded changes applied after the copy)",
          id, nextSeqNo, replayed[0]);
    }
  }

  /** Indexes a forwarded batch into the logical replica's own index; answers how many changes it held. */
  private int apply(ShardIndex index, long firstSeqNo, byte[] batch) throws IOException {
    ShardWriteBatch decoded;
    try {
      decoded = BATCHES.decode(batch);
    } catch (MalformedRecordException e) {
      throw new IOException("shard " + id + ": a forwarded batch at seq no " + firstSeqNo + " does not decode", e);
    }
    long seqNo = firstSeqNo;
    for (TransactionLogChange change : decoded.getChanges()) {
      index.apply(change, seqNo++);
    }
    if (firstUnrefreshedNanos == 0 && !decoded.getChanges().isEmpty()) {
      firstUnrefreshedNanos = System.nanoTime();
    }
    return decoded.getChanges().size();
  }

  private void refreshAppliedQuietly() {
    ShardIndex index = applied;
    if (index == null) {
      return;
    }
    try {
      long before = firstUnrefreshedNanos;
      index.refresh();
      if (firstUnrefreshedNanos == before) {
        firstUnrefreshedNanos = 0;
      }
    } catch (IOException | RuntimeException e) {
      LOG.error("shard {}: logical replica refresh failed", id, e);
    }
  }

  private void heartbeat() {
    ShardReplicaNode current = node;
    if ((current == null && applied == null) || state == State.CLOSED) {
      return;
    }
    try {
      // A logical replica holds every write from its join's point on once it applies them itself.
      long searching = current == null ? joinVersion : current.getCurrentSearchingVersion();
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
      if (state == State.CLOSED || !joining.compareAndSet(false, true)) {
        return; // closed, or a join is under way already
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
      ShardIndex index = applied;
      if (index != null) {
        apply(index, firstSeqNo, batch);
      }
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

  /** The primary announced a point: copy it in the background. */
  public void newPoint(long pointTerm, long version, long coveredSeqNo) throws IOException {
    ShardReplicaNode current = node;
    if (current == null || pointTerm != term || settings.logicalReplication()) {
      return; // joining (the join copies the primary's current point), or indexing by itself
    }
    if (version > announcedVersion) {
      announcedVersion = version;
      announcedAt.putIfAbsent(version, System.nanoTime());
      // Kept to the points not searched yet, also when no one reads the lag.
      announcedAt.headMap(current.getCurrentSearchingVersion(), true).clear();
    }
    current.newPoint(pointTerm, version, coveredSeqNo);
  }

  /** Copies a merged segment's files ahead of the point that will name them. */
  public void preCopyMerge(long pointTerm, Map<String, FileMetaData> files) throws IOException, InterruptedException {
    if (settings.logicalReplication()) {
      return; // it merges its own segments
    }
    ShardReplicaNode current = node;
    if (current == null || pointTerm != term) {
      throw new IllegalStateException("shard " + id + "'s replica is not following term " + pointTerm);
    }
    long started = System.nanoTime();
    current.preCopyMerge(pointTerm, files, TimeUnit.MINUTES.toMillis(30));
    LOG.info("shard {}: merged segment pre-copied ({} files, {} bytes) in {} ms", id, files.size(),
        files.values().stream().mapToLong(file -> file.length).sum(), (System.nanoTime() - started) / 1_000_000);
  }

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
    ShardIndex index = applied;
    return index != null ? index.searchers() : started().getSearcherManager();
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
    ShardIndex index = applied;
    if (index != null) {
      index.refresh();
      return;
    }
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
    if (applied != null) {
      long first = firstUnrefreshedNanos;
      return first == 0 ? 0 : (System.nanoTime() - first) / 1_000_000;
    }
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
    ShardIndex logical = applied;
    if (logical != null) {
      stats.setUnappliedChanges(logical.unappliedChanges());
    }
    if (node != null || applied != null) {
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

  /** The size of the index files copied here (and of any still being copied), or of the index built here. */
  private long indexBytes() {
    ShardReplicaNode copying = node;
    ShardIndex logical = applied;
    return copying != null ? ShardIndex.sizeInBytes(copying.getDirectory())
        : logical != null ? logical.sizeInBytes() : 0;
  }

  /**
   * Commits the copied segments and drops the translog generations they hold: each commit starts a generation, and a
   * generation goes once a commit covers the highest sequence number appended before the next one started.
   */
  public void commit() throws IOException {
    ShardIndex index = applied;
    if (index != null) {
      long generation;
      long seqNo;
      synchronized (lock) {
        generation = translog.rollGeneration();
        seqNo = nextSeqNo - 1;
      }
      index.commit(Map.of(ShardIndex.COMMIT_TRANSLOG_GENERATION, Long.toString(generation),
          ShardIndex.COMMIT_MAX_SEQ_NO, Long.toString(seqNo)));
      translog.deleteGenerationsBefore(generation);
      synchronized (lock) {
        committedCoveredSeqNo = seqNo;
      }
      return;
    }
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
    ShardIndex index = applied;
    if (index != null) {
      // Logical: its own index and translog are a primary's; it reopens as one, replaying the uncommitted tail.
      closeSchedules();
      long lastSeqNo;
      synchronized (lock) {
        lastSeqNo = nextSeqNo - 1;
      }
      commit();
      synchronized (lock) {
        state = State.CLOSED;
        lock.notifyAll();
      }
      applied = null;
      index.close();
      translog.close();
      LOG.info("shard {}: logical replica promoted to primary in term {} (seq no {})", id, newTerm, lastSeqNo);
      return Shard.open(id, directory, settings, scheduler, new PrimaryTerm(newTerm, -1), replicas, lastSeqNo);
    }
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

  private void closeSchedules() {
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
    ShardIndex index = applied;
    node = null;
    try {
      if (index != null) {
        commit();
        applied = null;
        index.close();
      }
      if (current != null) {
        current.commit();
        current.close();
      }
    } finally {
      translog.close();
    }
  }

  private static String host(String address) {
    return address.substring(0, address.lastIndexOf(':'));
  }

  private static int port(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }
}
