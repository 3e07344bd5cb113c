package io.evenkeel.shard.engine;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.shard.index.PrimaryTerm;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.replication.ShardReplicaNode;
import io.evenkeel.shard.translog.Translog;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;

/**
 * A replica in logical replication (Elasticsearch's way, kept to compare against: {@code --replication logical}): it
 * copies files only once, when it joins; then it opens an index writer on them, applies the writes forwarded since the
 * join and indexes every later one itself, on a refresh schedule of its own. Promoted, it reopens its index and
 * translog as a primary's.
 */
public final class LogicalReplicaShard extends ReplicaShard {
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  /** Once the files of the join's point are copied: the replica's own index. */
  private volatile ShardIndex applied;
  /** The primary's point at this replica's join: what its heartbeat reports once it applies writes itself. */
  private volatile long joinVersion;
  /** When the oldest write applied to {@link #applied} but not yet searchable was applied (nanoTime; 0: none). */
  private volatile long firstUnrefreshedNanos;

  LogicalReplicaShard(int id, Path directory, ShardSettings settings, String primary, String self,
      PeerChannels peers) {
    super(id, directory, settings, primary, self, peers);
  }

  @Override
  void scheduleOwn(ScheduledExecutorService scheduler) {
    schedules.add(scheduler.scheduleWithFixedDelay(this::refreshAppliedQuietly, settings.refreshIntervalMs(),
        settings.refreshIntervalMs(), TimeUnit.MILLISECONDS));
  }

  @Override
  Closeable takeOwnIndex() {
    ShardIndex previouslyApplied = applied;
    applied = null;
    return previouslyApplied;
  }

  /**
   * Once the join's point is copied, opens an index writer on it, applies the writes forwarded since the join (in the
   * translog) and from then on indexes every forwarded write.
   */
  @Override
  void afterJoin(ShardReplicaNode copier, long version) throws IOException, InterruptedException {
    joinVersion = version;
    while (copier.getCurrentSearchingVersion() < joinVersion) {
      if (state == State.CLOSED) {
        return;
      }
      if (rejoinRequested) {
        // Dropped while copying (a copy that failed is not retried): join again, with a fresh copy and translog.
        throw new IOException("shard " + id + ": the primary dropped this replica before it copied version "
            + joinVersion);
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
      try {
        translog.replay(Translog.OLDEST, record -> {
          try {
            replayed[0] += apply(index, record.firstSeqNo(), record.payload());
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
        index.refresh();
      } catch (IOException | RuntimeException e) {
        // Else it keeps Lucene's write lock and every later join fails on it.
        try {
          index.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      applied = index;
      LOG.info("shard {}: logical replica indexes from seq no {} on ({} forwarded changes applied after the copy)",
          id, nextSeqNo, replayed[0]);
    }
  }

  /** Indexes a forwarded batch into the replica's own index; answers how many changes it held. */
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

  @Override
  void appended(long firstSeqNo, byte[] batch) throws IOException {
    ShardIndex index = applied;
    if (index != null) {
      apply(index, firstSeqNo, batch);
    }
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

  @Override
  boolean indexesItself() {
    return applied != null;
  }

  @Override
  long searchingVersion(ShardReplicaNode current) throws IOException {
    // It holds every write from its join's point on once it applies them itself.
    return current == null ? joinVersion : current.getCurrentSearchingVersion();
  }

  @Override
  public void newPoint(long pointTerm, long version, long coveredSeqNo) {
    // Its join copies the primary's point of then; after that it indexes by itself.
  }

  @Override
  public void preCopyMerge(long pointTerm, Map<String, FileMetaData> files) {
    // It merges its own segments.
  }

  @Override
  public ReferenceManager<IndexSearcher> searchers() {
    ShardIndex index = applied;
    return index != null ? index.searchers() : super.searchers();
  }

  /** Once it indexes itself: makes its applied writes searchable. */
  @Override
  public void refresh() throws IOException {
    ShardIndex index = applied;
    if (index != null) {
      index.refresh();
      return;
    }
    super.refresh();
  }

  /** Once it indexes itself: how long the oldest write applied but not yet searchable has waited, in ms. */
  @Override
  public long lagMillis() throws IOException {
    if (applied != null) {
      long first = firstUnrefreshedNanos;
      return first == 0 ? 0 : (System.nanoTime() - first) / 1_000_000;
    }
    return super.lagMillis();
  }

  @Override
  void addOwnStats(ShardStats.Builder stats) {
    ShardIndex logical = applied;
    if (logical != null) {
      stats.setUnappliedChanges(logical.unappliedChanges());
    }
  }

  /** The size of the index files copied here (and of any still being copied), or of the index built here. */
  @Override
  long indexBytes() {
    ShardReplicaNode copying = node;
    ShardIndex logical = applied;
    return copying != null ? ShardIndex.sizeInBytes(copying.getDirectory())
        : logical != null ? logical.sizeInBytes() : 0;
  }

  /**
   * Once it indexes itself: commits its index with the translog generation started now and the last sequence number
   * appended, and drops the generations before.
   */
  @Override
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
    super.commit();
  }

  @Override
  public Shard promote(long newTerm, ScheduledExecutorService scheduler, Replicas replicas) throws IOException {
    ShardIndex index = applied;
    if (index != null) {
      // Its own index and translog are a primary's; it reopens as one, replaying the uncommitted tail.
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
    return super.promote(newTerm, scheduler, replicas);
  }

  @Override
  void closeOwnIndex() throws IOException {
    ShardIndex index = applied;
    if (index != null) {
      commit();
      applied = null;
      index.close();
    }
  }
}
