package io.evenkeel.shard.engine;

import java.util.concurrent.TimeUnit;

/**
 * A fixed number of changes a second a shard may index, for experiments that need a shard to be a bottleneck on a
 * machine where it otherwise is not (ESDB's skew experiments on one 2-core machine): a batch of n changes takes n
 * changes' share of a second, as it would on a slower disk or fewer cores. Batches in flight together share the
 * capacity slice by slice, as a shard's indexing threads would share its cores: a small batch arriving while a big one
 * is indexed waits for a slice, not for the whole big batch. It waits before the shard's write lock, so searches and
 * other shards go on meanwhile. A batch waiting longer than its writer's request timeout (the ingest job's 30 s) is
 * still written when its turn comes while the writer sends it again: keep the capacity well above what one lane's
 * batches need in that time.
 */
final class WriteCapacity {
  /** The changes one turn covers: what a batch indexes before a batch that came later may have its turn. */
  private static final int SLICE = 50;

  private final double nanosPerChange;
  /** When the capacity reserved so far is used up. */
  private long freeFrom;

  /** {@code changesPerSecond} > 0. */
  WriteCapacity(double changesPerSecond) {
    if (!(changesPerSecond > 0)) {
      throw new IllegalArgumentException("a write capacity is > 0 changes a second; got: " + changesPerSecond);
    }
    this.nanosPerChange = 1e9 / changesPerSecond;
  }

  /** Waits until {@code changes} more changes have had their share of the capacity, a slice at a time. */
  void acquire(int changes) throws InterruptedException {
    for (int left = changes; left > 0; left -= SLICE) {
      long done;
      synchronized (this) {
        freeFrom = Math.max(System.nanoTime(), freeFrom) + (long) (Math.min(left, SLICE) * nanosPerChange);
        done = freeFrom;
      }
      long wait = done - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
    }
  }
}
