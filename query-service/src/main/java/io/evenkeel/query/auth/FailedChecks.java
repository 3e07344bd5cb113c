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

  /** 0 when {@code key} may cause another failed check now, else the seconds until it may. */
  long retryAfterSeconds(String key) {
    Bucket bucket = buckets.get(key);
    if (bucket == null) {
      return 0;
    }
    synchronized (bucket) {
      bucket.drain(clock.getAsLong());
      double over = bucket.failures - (burst - 1);
      return over <= 0 ? 0 : Math.max(1, (long) Math.ceil(over * refillNanos / 1e9));
    }
  }

  /** A check caused by {@code key} failed. */
  void failed(String key) {
    long now = clock.getAsLong();
    if (buckets.size() >= MAX_TRACKED) {
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
    Bucket bucket = buckets.computeIfAbsent(key, k -> new Bucket(now));
    synchronized (bucket) {
      bucket.drain(now);
      bucket.failures = Math.min(burst, bucket.failures + 1);
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
