package io.evenkeel.shard.engine;

import java.util.concurrent.TimeUnit;

/**
 * A fixed number of changes a second a shard may index, for experiments that need a shard to be a bottleneck on a
 * machine where it otherwise is not (ESDB's skew experiments on one 2-core machine): each batch reserves its changes'
 * share of the capacity, after the batches before it, and waits for its turn. Reservations follow arrival order, so a
 * backlog shows as waiting writers, as it would with a slower disk or fewer cores; the wait happens before the
 * shard's write lock, so searches and other shards go on meanwhile.
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

  /** Waits until {@code changes} more changes fit the capacity. */
  void acquire(int changes) throws InterruptedException {
    long start;
    synchronized (this) {
      long now = System.nanoTime();
      start = Math.max(now, freeFrom);
      freeFrom = start + (long) (changes * nanosPerChange);
    }
    long wait = start - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
