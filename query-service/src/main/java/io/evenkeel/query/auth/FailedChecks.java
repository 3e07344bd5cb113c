package io.evenkeel.query.auth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many failed key checks a key id, or a client address, may cause: a bucket of {@code burst} failures each,
 * refilled one every {@code refillNanos}. A check of a wrong secret costs a bcrypt hash by design (tens of
 * milliseconds of CPU); without a bound, guessing at one known key id would take the service's CPU from everyone.
 * Thread-safe; at most {@link #MAX_TRACKED} buckets are kept (the full ones are dropped first, then all).
 */
final class FailedChecks {
  static final int MAX_TRACKED = 10_000;

  private final int burst;
  private final long refillNanos;
  private final LongSupplier clock;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  FailedChecks(int burst, long refillNanos, LongSupplier clock) {
    this.burst = burst;
    this.refillNanos = refillNanos;
    this.clock = clock;
  }

  /**
   * Counts a check of {@code key}'s as failed before it runs, so that concurrent checks cannot all pass the bound:
   * 0 when it may run (give the count back with {@link #passed} if it succeeds), else the seconds until one may.
   */
  long begin(String key) {
    long now = clock.getAsLong();
    if (buckets.size() >= MAX_TRACKED && !buckets.containsKey(key)) {
      evictDrained(now);
    }
    Bucket bucket = buckets.computeIfAbsent(key, k -> new Bucket(now));
    synchronized (bucket) {
      bucket.drain(now);
      double over = bucket.failures + 1 - burst;
      if (over > 0) {
        return Math.max(1, (long) Math.ceil(over * refillNanos / 1e9));
      }
      bucket.failures++;
      return 0;
    }
  }

  /** The check {@link #begin} counted did not fail. */
  void passed(String key) {
    Bucket bucket = buckets.get(key);
    if (bucket != null) {
      synchronized (bucket) {
        bucket.failures = Math.max(0, bucket.failures - 1);
      }
    }
  }

  private void evictDrained(long now) {
    buckets.values().removeIf(bucket -> {
      synchronized (bucket) {
        bucket.drain(now);
        return bucket.failures == 0;
      }
    });
    if (buckets.size() >= MAX_TRACKED) {
      buckets.clear();
    }
  }

  /** The failures counted, of which one drains away every refill interval. */
  private final class Bucket {
    double failures;
    long at;

    Bucket(long now) {
      this.at = now;
    }

    void drain(long now) {
      failures = Math.max(0, failures - (double) (now - at) / refillNanos);
      at = now;
    }
  }
}
