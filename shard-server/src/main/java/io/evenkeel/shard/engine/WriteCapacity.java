package io.evenkeel.shard.engine;

import java.util.concurrent.TimeUnit;

/**
 * A fixed number of changes a second a shard may index, for experiments that need a shard to be a bottleneck on a
 * machine where it otherwise is not (ESDB's skew experiments on one 2-core machine): a batch of n changes takes n
 * changes' share of a second, after the batches before it, as it would on a slower disk or fewer cores. It waits
 * before the shard's write lock, so searches and other shards go on meanwhile. A batch waiting longer than its
 * writer's request timeout (the ingest job's 30 s) is still written when its turn comes while the writer sends it
 * again: keep the capacity well above what one lane's batches need in that time.
 */
final class WriteCapacity {
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

  /** Waits until {@code changes} more changes have had their share of the capacity. */
  void acquire(int changes) throws InterruptedException {
    long done;
    synchronized (this) {
      freeFrom = Math.max(System.nanoTime(), freeFrom) + (long) (changes * nanosPerChange);
      done = freeFrom;
    }
    long wait = done - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
