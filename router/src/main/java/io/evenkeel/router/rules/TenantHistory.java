package io.evenkeel.router.rules;

import java.util.Arrays;

/**
 * The offset sizes one tenant has had: step i says that rows created at or after {@code times[i]} (and before the next
 * step) use {@code sizes[i]}. Before the first step the tenant uses L = 1. Immutable; {@link #then} copies.
 */
final class TenantHistory {
  static final TenantHistory EMPTY = new TenantHistory(new long[0], new int[0]);

  private final long[] times;
  private final int[] sizes;

  private TenantHistory(long[] times, int[] sizes) {
    this.times = times;
    this.sizes = sizes;
  }

  /** This history followed by {@code rule}: grow rules keep the largest L so far, cool-down rules set theirs. */
  TenantHistory then(Rule rule) {
    int n = times.length;
    int current = n == 0 ? 1 : sizes[n - 1];
    int next = rule.coolDown() ? rule.offsetSize() : Math.max(current, rule.offsetSize());
    long[] t = Arrays.copyOf(times, n + 1);
    int[] s = Arrays.copyOf(sizes, n + 1);
    t[n] = rule.effectiveTime();
    s[n] = next;
    return new TenantHistory(t, s);
  }

  /** L for a row created at {@code createdTime}. */
  int offsetSizeAt(long createdTime) {
    int step = lastStepAtOrBefore(createdTime);
    return step < 0 ? 1 : sizes[step];
  }

  /** The largest L used by rows created in [{@code from}, {@code to}]. */
  int maxOffsetSizeBetween(long from, long to) {
    int step = lastStepAtOrBefore(from);
    int max = step < 0 ? 1 : sizes[step];
    for (int i = step + 1; i < times.length && times[i] <= to; i++) {
      max = Math.max(max, sizes[i]);
    }
    return max;
  }

  int steps() {
    return times.length;
  }

  private int lastStepAtOrBefore(long time) {
    // Steps are in time order; equal times keep append order, so the last of them wins.
    int lo = 0;
    int hi = times.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (times[mid] <= time) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
