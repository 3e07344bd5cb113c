package io.evenkeel.shard.engine;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.shard.index.IndexFields;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.index.StoredRow;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.shard.translog.Translog;
import io.evenkeel.shard.translog.TranslogLocation;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.TermQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard: its translog and its Lucene index, and the write path between them. A batch is appended to the translog
 * (one record, so a torn batch is dropped whole), applied change by change with consecutive sequence numbers, made
 * durable as {@link Durability} says, and only then acknowledged.
 */
public final class Shard implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Shard.class);
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  /** What a write did. */
  public record WriteResult(long firstSeqNo, long lastSeqNo, int applied, int ignored, TranslogLocation location) {}

  private final int id;
  private final ShardSettings settings;
  private final Translog translog;
  private final ShardIndex index;
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

  private Shard(int id, ShardSettings settings, Translog translog, ShardIndex index, long maxSeqNo) {
    this.id = id;
    this.settings = settings;
    this.translog = translog;
    this.index = index;
    this.maxSeqNo = maxSeqNo;
    this.committedSeqNo = maxSeqNo;
  }

  /** Opens (or creates) the shard in {@code directory}, replaying the translog tail that its last commit lacks. */
  public static Shard open(int id, Path directory, ShardSettings settings, ScheduledExecutorService scheduler)
      throws IOException {
    Files.createDirectories(directory);
    ShardIndex index = new ShardIndex(directory.resolve("index"), id, settings.ramBufferMb(), settings.hotAttributes(),
        PrimaryTerm.COMMITTED, files -> {});
    Map<String, String> commit = index.openedCommitData();
    long fromGeneration = Long.parseLong(commit.getOrDefault(ShardIndex.COMMIT_TRANSLOG_GENERATION, "1"));
    long committedSeqNo = Long.parseLong(commit.getOrDefault(ShardIndex.COMMIT_MAX_SEQ_NO, "0"));
    Translog translog = Translog.open(directory.resolve("translog"));
    Shard shard = new Shard(id, settings, translog, index, committedSeqNo);
    shard.recover(fromGeneration);
    shard.schedule(scheduler);
    return shard;
  }

  private void recover(long fromGeneration) throws IOException {
    long started = System.nanoTime();
    long[] counts = new long[2];
    translog.replay(fromGeneration, record -> {
      try {
        ShardWriteBatch batch = BATCHES.decode(record.payload());
        long seqNo = record.firstSeqNo();
        for (TransactionLogChange change : batch.getChanges()) {
          // Changes already in the commit are ignored by the version check; replay is idempotent.
          index.apply(change, seqNo);
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
      LOG.info("shard {}: replayed {} batches ({} changes) from translog generation {} in {} ms; max seq no {}", id,
          counts[0], counts[1], fromGeneration, (System.nanoTime() - started) / 1_000_000, maxSeqNo);
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
    int applied = 0;
    long first;
    TranslogLocation location;
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
    } finally {
      writeLock.unlock();
    }
    if (settings.durability() == Durability.REQUEST) {
      // Outside the write lock: concurrent batches share one fsync.
      translog.sync();
    }
    if (batch.getWaitForRefresh()) {
      index.refresh();
    }
    int ignored = changes.size() - applied;
    ignoredChanges.addAndGet(ignored);
    writeRate.record(changes.size(), System.currentTimeMillis());
    return new WriteResult(first, first + changes.size() - 1, applied, ignored, location);
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

  /** Makes every acknowledged write searchable now. */
  public void refresh() throws IOException {
    index.refresh();
  }

  public ShardSettings settings() {
    return settings;
  }

  public ShardIndex index() {
    return index;
  }

  /**
   * The stored bytes of each live row among {@code keys}, in order; absent and deleted rows are skipped. Real time:
   * it sees acknowledged writes that no refresh has made searchable yet.
   */
  public List<byte[]> fetch(List<RowKey> keys) throws IOException {
    List<byte[]> rows = new ArrayList<>(keys.size());
    for (StoredRow row : index.lookupAll(keys)) {
      if (row != null && !row.deleted()) {
        rows.add(row.source());
      }
    }
    return rows;
  }

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
          .build();
    } finally {
      index.searchers().release(searcher);
    }
  }

  /** Commits and closes; a later {@link #open} replays nothing. */
  @Override
  public void close() throws IOException {
    schedules.forEach(s -> s.cancel(false));
    try {
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
