package io.evenkeel.router.rules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The placements one tenant has had: step i says that rows created at or after {@code times[i]} (and before the next
 * step) use {@code tables[i]} when it is set, else {@code sizes[i]} consecutive shards. Before the first step the
 * tenant uses L = 1. Immutable; {@link #then} copies.
 */
final class TenantHistory {
  static final TenantHistory EMPTY = new TenantHistory(new long[0], new int[0], new ShardTable[0]);

  private final long[] times;
  private final int[] sizes;
  private final ShardTable[] tables;

  private TenantHistory(long[] times, int[] sizes, ShardTable[] tables) {
    this.times = times;
    this.sizes = sizes;
    this.tables = tables;
  }

  /**
   * This history followed by {@code rule}: grow rules keep the largest L so far (a table counts as L = 1), cool-down
   * rules set theirs, table rules set their table.
   */
  TenantHistory then(Rule rule) {
    int n = times.length;
    int current = n == 0 ? 1 : sizes[n - 1];
    int next = rule.coolDown() ? rule.offsetSize() : Math.max(current, rule.offsetSize());
    long[] t = Arrays.copyOf(times, n + 1);
    int[] s = Arrays.copyOf(sizes, n + 1);
    ShardTable[] tb = Arrays.copyOf(tables, n + 1);
    t[n] = rule.effectiveTime();
    s[n] = next;
    tb[n] = rule.table();
    return new TenantHistory(t, s, tb);
  }

  /** L for a row created at {@code createdTime} (1 under a table). */
  int offsetSizeAt(long createdTime) {
    int step = lastStepAtOrBefore(createdTime);
    return step < 0 ? 1 : sizes[step];
  }

  /** The table of a row created at {@code createdTime}, or null when it goes to L consecutive shards. */
  ShardTable tableAt(long createdTime) {
    int step = lastStepAtOrBefore(createdTime);
    return step < 0 ? null : tables[step];
  }

  /** The largest L used by rows created in [{@code from}, {@code to}] outside tables, 0 when all were in tables. */
  int maxOffsetSizeBetween(long from, long to) {
    int step = lastStepAtOrBefore(from);
    int max = step < 0 ? 1 : tables[step] == null ? sizes[step] : 0;
    for (int i = step + 1; i < times.length && times[i] <= to; i++) {
      max = Math.max(max, tables[i] == null ? sizes[i] : 0);
    }
    return max;
  }

  /** The tables of rows created in [{@code from}, {@code to}]. */
  List<ShardTable> tablesBetween(long from, long to) {
    List<ShardTable> between = new ArrayList<>();
    int step = Math.max(0, lastStepAtOrBefore(from));
    for (int i = step; i < times.length && times[i] <= to; i++) {
      if (tables[i] != null) {
        between.add(tables[i]);
      }
    }
    return between;
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
