package io.evenkeel.shard.engine;

/** Changes per second over the last {@link #WINDOW_SECONDS} whole seconds. */
final class WriteRate {
  static final int WINDOW_SECONDS = 10;

  private final long[] counts = new long[WINDOW_SECONDS + 1];
  private final long[] seconds = new long[WINDOW_SECONDS + 1];

  synchronized void record(int changes, long nowMillis) {
    long second = nowMillis / 1000;
    int slot = (int) (second % counts.length);
    if (seconds[slot] != second) {
      seconds[slot] = second;
      counts[slot] = 0;
    }
    counts[slot] += changes;
  }

  synchronized double perSecond(long nowMillis) {
    long current = nowMillis / 1000;
    long total = 0;
    for (int i = 0; i < counts.length; i++) {
      // The current second is still filling up: count only whole seconds.
      if (seconds[i] < current && seconds[i] >= current - WINDOW_SECONDS) {
        total += counts[i];
      }
    }
    return total / (double) WINDOW_SECONDS;
  }
}
