package io.evenkeel.shard.engine;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.NrtPoint;
import io.evenkeel.schemas.shard.ReplicaState;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.shard.index.IndexFields;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.index.StoredRow;
import io.evenkeel.shard.index.UnindexedRows;
import io.evenkeel.shard.replication.CopyStateLeases;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.shard.translog.Translog;
import io.evenkeel.shard.translog.TranslogLocation;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard's primary copy: its translog and its Lucene index, and the write path between them. A batch is appended to
 * the translog (one record, so a torn batch is dropped whole), applied change by change with consecutive sequence
 * numbers, forwarded to the replicas' translogs, made durable as {@link Durability} says, and acknowledged once the
 * required copies hold it ({@link Replicas}). Each refresh is a point replicas copy segment files from.
 */
public final class Shard implements ShardCopy {
  private static final Logger LOG = LoggerFactory.getLogger(Shard.class);
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  /** What a write did. */
  public record WriteResult(long firstSeqNo, long lastSeqNo, int applied, int ignored, TranslogLocation location) {}

  /** Where a joining replica starts: writes from {@code nextSeqNo} are forwarded, earlier ones are in {@code version}. */
  public record Join(long term, long nextSeqNo, long version) {}

  /** Thrown when fewer copies than required hold a write: the writer may retry (writes are idempotent). */
  public static final class CopiesUnavailableException extends IOException {
    CopiesUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Longer than a forward's own deadline: the replica set drops a replica that does not answer in time. */
  private static final long COPIES_TIMEOUT_SECONDS = 40;

  private final int id;
  private final ShardSettings settings;
  /** The shard's write capacity, or null when it has none. */
  private final WriteCapacity capacity;
  private final Translog translog;
  private final ShardIndex index;
  private final Replicas replicas;
  private final CopyStateLeases leases;
  /** The most bytes one read of an index file returns: a replica copies files in chunks of 1 MiB. */
  public static final int MAX_READ_BYTES = 1 << 20;
  /** What Lucene names its files: letters, digits, '_' and '.', never a path. */
  private static final java.util.regex.Pattern LUCENE_FILE_NAME = java.util.regex.Pattern.compile(
      "[A-Za-z0-9_][A-Za-z0-9_.]*");
  /** Rows to index again for keys listed since they were written; guarded by itself. */
  private final UnindexedRows unindexed;
  private final ReentrantLock refreshLock = new ReentrantLock();
  /** The last point announced to replicas, and a sequence number its segments hold every write up to. */
  private long publishedVersion = -1;
  private volatile long publishedCoveredSeqNo;
  /** Orders translog appends and index applies: the translog order is the apply order. */
  private final ReentrantLock writeLock = new ReentrantLock();
  private final ReentrantLock commitLock = new ReentrantLock();
  private final WriteRate writeRate = new WriteRate();
  private final AtomicLong ignoredChanges = new AtomicLong();
  private final List<ScheduledFuture<?>> schedules = new ArrayList<>();
  private long maxSeqNo;
  private volatile long committedSeqNo;
  /** When the oldest write not yet searchable was applied (System.nanoTime), or 0 when all are searchable. */
  private volatile long firstUnrefreshedNanos;

  private Shard(int id, ShardSettings settings, Translog translog, ShardIndex index, Replicas replicas,
      long maxSeqNo) {
    this.id = id;
    this.settings = settings;
    this.capacity = settings.writeCapacity() > 0 ? new WriteCapacity(settings.writeCapacity()) : null;
    this.translog = translog;
    this.index = index;
    this.replicas = replicas;
    this.leases = new CopyStateLeases(index.node());
    this.unindexed = index.unindexedRows();
    this.maxSeqNo = maxSeqNo;
    this.committedSeqNo = maxSeqNo;
    replicas.term(index.node().getPrimaryGen());
  }

  /**
   * Opens (or creates) the shard in {@code directory} as a primary in the term of its last commit, without replicas,
   * replaying the translog tail that its last commit lacks.
   */
  public static Shard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler)
      throws IOException {
    return open(id, directory, settings, scheduler, PrimaryTerm.COMMITTED, new Replicas(id, null, 1), 0);
  }

  /**
   * Opens (or creates) the shard in {@code directory} as a primary in {@code term} that forwards to {@code replicas},
   * replaying the translog tail that its last commit lacks (for a promoted replica: all of its translog). Sequence
   * numbers continue above {@code minMaxSeqNo} at least.
   */
  public static Shard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler,
      PrimaryTerm term, Replicas replicas, long minMaxSeqNo) throws IOException {
    return open(id, directory, settings, scheduler, term, replicas, minMaxSeqNo, -1);
  }

  /**
   * The same, for a promoted replica whose commit holds every write up to {@code committedSeqNo}: its translog's
   * changes up to there are not applied again (only counted), so the promotion replays seconds of writes, not the
   * half minute or more its translog keeps between commits.
   */
  public static Shard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler,
      PrimaryTerm term, Replicas replicas, long minMaxSeqNo, long committedSeqNo) throws IOException {
    Files.createDirectories(directory);
    ShardIndex index = new ShardIndex(directory.resolve("index"), id, settings.ramBufferMb(), settings.hotAttributes(),
        term, replicas);
    Map<String, String> commit = index.openedCommitData();
    // A commit of this shard's own names where its translog tail starts; without one (a new index, or the copied
    // commit of a promoted replica) every generation on disk is replayed.
    long fromGeneration = commit.containsKey(ShardIndex.COMMIT_TRANSLOG_GENERATION)
        ? Long.parseLong(commit.get(ShardIndex.COMMIT_TRANSLOG_GENERATION)) : Translog.OLDEST;
    long ownCommitSeqNo = Long.parseLong(commit.getOrDefault(ShardIndex.COMMIT_MAX_SEQ_NO, "0"));
    Translog translog = Translog.open(directory.resolve("translog"));
    Shard shard = new Shard(id, settings, translog, index, replicas, Math.max(ownCommitSeqNo, minMaxSeqNo));
    shard.recover(fromGeneration, committedSeqNo);
    shard.refresh();
    shard.schedule(scheduler);
    return shard;
  }

  /** Replays the translog from {@code fromGeneration}, applying the changes above {@code committedSeqNo}. */
  private void recover(long fromGeneration, long committedSeqNo) throws IOException {
    long started = System.nanoTime();
    long[] counts = new long[3];
    translog.replay(fromGeneration, record -> {
      try {
        ShardWriteBatch batch = BATCHES.decode(record.payload());
        long seqNo = record.firstSeqNo();
        for (TransactionLogChange change : batch.getChanges()) {
          // Changes already in the commit are ignored by the version check; replay is idempotent.
          if (seqNo > committedSeqNo) {
            index.apply(change, seqNo);
            counts[2]++;
          }
          maxSeqNo = Math.max(maxSeqNo, seqNo++);
          counts[1]++;
        }
        counts[0]++;
      } catch (MalformedRecordException e) {
        throw new IllegalStateException("shard " + id + ": translog record at " + record.location()
            + " passed its checksum but does not decode: " + e.getMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    index.refresh();
    if (counts[0] > 0) {
      LOG.info("shard {}: replayed {} batches ({} changes, {} of them above the commit's seq no {}) from translog "
          + "generation {} in {} ms; max seq no {}", id, counts[0], counts[1], counts[2], committedSeqNo,
          fromGeneration, (System.nanoTime() - started) / 1_000_000, maxSeqNo);
    }
  }

  private void schedule(ScheduledExecutorService scheduler) {
    index.searchers().addListener(new ReferenceManager.RefreshListener() {
      @Override
      public void beforeRefresh() {
        firstUnrefreshedNanos = 0;
      }

      @Override
      public void afterRefresh(boolean didRefresh) {}
    });
    schedules.add(scheduler.scheduleWithFixedDelay(() -> run("refresh", this::refresh),
        settings.refreshIntervalMs(), settings.refreshIntervalMs(), TimeUnit.MILLISECONDS));
    schedules.add(scheduler.scheduleWithFixedDelay(() -> run("commit", this::commit),
        settings.commitIntervalMs(), settings.commitIntervalMs(), TimeUnit.MILLISECONDS));
    schedules.add(scheduler.scheduleWithFixedDelay(() -> run("copy state leases", leases::expire), 10, 10,
        TimeUnit.SECONDS));
    if (settings.durability() == Durability.INTERVAL) {
      schedules.add(scheduler.scheduleWithFixedDelay(() -> run("translog sync", translog::sync),
          settings.syncIntervalMs(), settings.syncIntervalMs(), TimeUnit.MILLISECONDS));
    }
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private void run(String what, IoAction action) {
    try {
      action.run();
    } catch (Exception e) {
      LOG.error("shard {}: {} failed", id, what, e);
    }
  }

  @Override
  public int id() {
    return id;
  }

  /**
   * Writes a batch: {@code bytes} is its single-object encoding, logged as is. Throws {@link
   * IllegalArgumentException} naming the problem, before anything is logged, when a change cannot be applied.
   */
  public WriteResult write(ShardWriteBatch batch, byte[] bytes) throws IOException {
    if (batch.getShard() != id) {
      throw new IllegalArgumentException("batch for shard " + batch.getShard() + " sent to shard " + id);
    }
    List<TransactionLogChange> changes = batch.getChanges();
    changes.forEach(Changes::validate);
    if (capacity != null) {
      try {
        capacity.acquire(changes.size());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for shard " + id + "'s write capacity");
      }
    }
    int applied = 0;
    long first;
    TranslogLocation location;
    CompletableFuture<Void> copies;
    writeLock.lock();
    try {
      first = maxSeqNo + 1;
      location = translog.append(first, bytes);
      long seqNo = first;
      for (TransactionLogChange change : changes) {
        if (index.apply(change, seqNo++)) {
          applied++;
        }
      }
      maxSeqNo = Math.max(first - 1, seqNo - 1);
      if (firstUnrefreshedNanos == 0 && !changes.isEmpty()) {
        firstUnrefreshedNanos = System.nanoTime();
      }
      // Sent under the lock: replicas receive batches in sequence order.
      copies = replicas.forward(first, seqNo - 1, bytes);
    } finally {
      writeLock.unlock();
    }
    if (settings.durability() == Durability.REQUEST) {
      // Outside the write lock: concurrent batches share one fsync.
      translog.sync();
    }
    awaitCopies(copies, first);
    if (batch.getWaitForRefresh()) {
      index.refresh();
    }
    int ignored = changes.size() - applied;
    ignoredChanges.addAndGet(ignored);
    writeRate.record(changes.size(), System.currentTimeMillis());
    return new WriteResult(first, first + changes.size() - 1, applied, ignored, location);
  }

  private void awaitCopies(CompletableFuture<Void> copies, long firstSeqNo) throws IOException {
    try {
      copies.get(COPIES_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new CopiesUnavailableException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new CopiesUnavailableException("shard " + id + ": replicas did not answer for seq no " + firstSeqNo + " within "
          + COPIES_TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for replicas", e);
    }
  }

  /** Commits the index and trims the translog generations the commit makes unnecessary. */
  public void commit() throws IOException {
    commitLock.lock();
    try {
      long generation;
      long seqNo;
      writeLock.lock();
      try {
        // Everything applied so far is in generations before the new one; the commit below holds it all.
        generation = translog.rollGeneration();
        seqNo = maxSeqNo;
      } finally {
        writeLock.unlock();
      }
      index.commit(Map.of(
          ShardIndex.COMMIT_TRANSLOG_GENERATION, Long.toString(generation),
          ShardIndex.COMMIT_MAX_SEQ_NO, Long.toString(seqNo)));
      translog.deleteGenerationsBefore(generation);
      committedSeqNo = seqNo;
    } finally {
      commitLock.unlock();
    }
  }

  /** Makes every acknowledged write searchable now, and announces the new point to the replicas. */
  @Override
  public void refresh() throws IOException {
    refreshLock.lock();
    try {
      long covered;
      writeLock.lock();
      try {
        covered = maxSeqNo;
      } finally {
        writeLock.unlock();
      }
      index.refresh();
      long version = index.node().getCopyStateVersion();
      if (version != publishedVersion) {
        publishedVersion = version;
        publishedCoveredSeqNo = covered;
        replicas.publish(version, covered);
      }
    } finally {
      refreshLock.unlock();
    }
  }

  /**
   * Adds a replica at {@code address}: writes from now on are forwarded to it, and a refresh makes a point holding
   * every earlier one, for it to copy.
   */
  public Join addReplica(String address) throws IOException {
    long next;
    Replicas.Replica entry;
    writeLock.lock();
    try {
      next = maxSeqNo + 1;
      entry = replicas.add(address, next);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new CopiesUnavailableException("shard " + id + ": recording that " + address + " left the in-sync set "
          + "before it joins again failed: " + e.getMessage(), e);
    } finally {
      writeLock.unlock();
    }
    refresh();
    long version = index.node().getCopyStateVersion();
    replicas.joinedAt(entry, version);
    return new Join(index.node().getPrimaryGen(), next, version);
  }

  /** A replica's heartbeat: false when this primary does not forward to it (it must join again). */
  public boolean replicaHeartbeat(String address, long term, long searchingVersion) {
    return replicas.heartbeat(address, term, searchingVersion);
  }

  public boolean replicaInSync(String address) {
    return replicas.inSync(address);
  }

  public long version() {
    return index.node().getCopyStateVersion();
  }

  /** Holds the current point for a replica to copy: its session and the point. */
  public Map.Entry<Long, NrtPoint> acquirePoint() throws IOException {
    return leases.acquire(publishedCoveredSeqNo);
  }

  public void releasePoint(long session) throws IOException {
    leases.release(session);
  }

  /**
   * Up to {@code length} bytes (at most {@link #MAX_READ_BYTES}) of an index file from {@code offset}, for a replica
   * copying it: a file of the copy state its session holds, or (session 0) of a merged segment being copied to the
   * replicas now. Nothing else of the directory, or outside it, is read.
   */
  public byte[] readFile(String file, long offset, int length, long session) throws IOException {
    if (length < 0 || length > MAX_READ_BYTES) {
      throw new IllegalArgumentException("a read of shard " + id + "'s files takes 0 to " + MAX_READ_BYTES
          + " bytes; got " + length);
    }
    if (!LUCENE_FILE_NAME.matcher(file).matches()) {
      throw new IllegalArgumentException("not an index file name: " + file);
    }
    if (session == 0 ? !index.node().isPreCopying(file) : !leases.holds(session, file)) {
      throw new IllegalStateException(session == 0 ? "shard " + id + " is copying no merged segment with file " + file
          : "copy state session " + session + " of shard " + id + " has ended or holds no file " + file);
    }
    try (IndexInput in = index.node().getDirectory().openInput(file, IOContext.DEFAULT)) {
      if (offset < 0 || offset > in.length()) {
        throw new IllegalArgumentException("offset " + offset + " is outside " + file + " (" + in.length() + " bytes)");
      }
      byte[] bytes = new byte[(int) Math.min(length, in.length() - offset)];
      in.seek(offset);
      in.readBytes(bytes, 0, bytes.length);
      return bytes;
    }
  }

  public ShardSettings settings() {
    return settings;
  }

  @Override
  public ReferenceManager<IndexSearcher> searchers() {
    return index.searchers();
  }

  public ShardIndex index() {
    return index;
  }

  /**
   * The stored bytes of each live row among {@code keys}, in order; absent and deleted rows are skipped. Real time:
   * it sees acknowledged writes that no refresh has made searchable yet.
   */
  @Override
  public List<byte[]> fetch(List<RowKey> keys) throws IOException {
    List<byte[]> rows = new ArrayList<>(keys.size());
    for (StoredRow row : index.lookupAll(keys)) {
      if (row != null && !row.deleted()) {
        rows.add(row.source());
      }
    }
    return rows;
  }

  @Override
  public ShardStats stats() throws IOException {
    IndexSearcher searcher = index.searchers().acquire();
    try {
      int tombstones = searcher.count(new TermQuery(new Term(IndexFields.TOMBSTONE, "T")));
      int all = searcher.count(new MatchAllDocsQuery());
      long first = firstUnrefreshedNanos;
      long maxSeq;
      writeLock.lock();
      try {
        maxSeq = maxSeqNo;
      } finally {
        writeLock.unlock();
      }
      return ShardStats.newBuilder()
          .setShard(id)
          .setDocs(all - tombstones)
          .setTombstones(tombstones)
          .setBytes(index.sizeInBytes())
          .setSegments(searcher.getIndexReader().leaves().size())
          .setWritesPerSecond(writeRate.perSecond(System.currentTimeMillis()))
          .setRefreshLagMs(first == 0 ? 0 : (System.nanoTime() - first) / 1_000_000)
          .setTranslogBytes(translog.sizeInBytes())
          .setTranslogGeneration(translog.currentGeneration())
          .setMaxSeqNo(maxSeq)
          .setCommittedSeqNo(committedSeqNo)
          .setIgnoredChanges(ignoredChanges.get())
          .setUnappliedChanges(index.unappliedChanges())
          .addAllHotAttributes(new TreeSet<>(settings.hotAttributes().keys()))
          .setUnindexedRows(index.unindexedRowCount(searcher))
          .setRole("PRIMARY")
          .setPrimaryTerm(index.node().getPrimaryGen())
          .addAllReplicas(replicas.status().stream().map(replica -> ReplicaState.newBuilder()
              .setAddress(replica.address()).setInSync(replica.inSync()).build()).toList())
          .build();
    } finally {
      index.searchers().release(searcher);
    }
  }

  /**
   * Indexes again up to {@code max} rows written before a key they lack was listed hot (frequency-based indexing),
   * so that filters on it read the index rather than scan their stored rows; answers how many, 0 when none is left
   * at the searchable point. The rows are read outside the write lock and written under it, each only if no newer
   * change of its row came meanwhile.
   */
  public int reindexUnindexed(int max) throws IOException {
    synchronized (unindexed) {
      List<UnindexedRows.UnindexedRow> rows = unindexed.next(max);
      if (rows.isEmpty()) {
        return 0;
      }
      writeLock.lock();
      try {
        return index.reindex(rows);
      } finally {
        writeLock.unlock();
      }
    }
  }

  /** What broke this shard's index writer for good, or null: such a shard must be reopened from its commit. */
  public Throwable failure() {
    return index.tragedy();
  }

  /** The primary term this shard writes in. */
  public long term() {
    return index.node().getPrimaryGen();
  }

  /** Commits and closes; a later {@link #open} replays nothing. */
  @Override
  public void close() throws IOException {
    schedules.forEach(s -> s.cancel(false));
    replicas.close(); // before the writer's close, which waits for merges and so for their copies to replicas
    synchronized (unindexed) {
      unindexed.close(); // hands its searcher back before the index closes
    }
    try {
      leases.releaseAll();
      commit();
    } finally {
      try {
        index.close();
      } finally {
        translog.close();
      }
    }
  }
}
