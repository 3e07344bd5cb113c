package io.evenkeel.ingest.sink;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * The tenants this sink sees surging before the monitor can: the monitor's view ({@link MonitoredHotTenants}) comes
 * a window or two after a surge begins, and meanwhile the surging tenant's backlog would hold the small tenants'
 * changes. Counted per second of the sink's own changes: a tenant enters when a second shows it above {@code
 * hotShare} of them and at least {@code minChanges}, and leaves when one shows it below {@code coolShare} (or fewer
 * than half the minimum). Task thread only.
 */
final class SurgingTenants implements LongPredicate {
  private static final long SECOND_MS = 1_000;

  private final double hotShare;
  private final double coolShare;
  private final long minChanges;
  private final Map<Long, long[]> counts = new HashMap<>();
  private long total;
  private long secondStart = Long.MIN_VALUE;
  private Set<Long> surging = Set.of();

  SurgingTenants(double hotShare, double coolShare, long minChanges) {
    if (!(coolShare > 0 && coolShare <= hotShare && minChanges > 0)) {
      throw new IllegalArgumentException("need 0 < coolShare <= hotShare and minChanges > 0; got: " + coolShare
          + ", " + hotShare + ", " + minChanges);
    }
    this.hotShare = hotShare;
    this.coolShare = coolShare;
    this.minChanges = minChanges;
  }

  /** Counts a change of {@code tenant} at {@code nowMs}; a second that ended decides who surges. */
  void count(long tenant, long nowMs) {
    if (secondStart == Long.MIN_VALUE) {
      secondStart = nowMs;
    } else if (nowMs - secondStart >= SECOND_MS) {
      decide(nowMs - secondStart < 2 * SECOND_MS);
      secondStart = nowMs;
    }
    counts.computeIfAbsent(tenant, t -> new long[1])[0]++;
    total++;
  }

  /** From the second that ended: a second with no change after it (a pause) clears the view. */
  private void decide(boolean consecutive) {
    Set<Long> next = new HashSet<>();
    if (consecutive) {
      for (Long tenant : surging) {
        long[] count = counts.get(tenant);
        if (count != null && count[0] >= coolShare * total && 2 * count[0] >= minChanges) {
          next.add(tenant);
        }
      }
      counts.forEach((tenant, count) -> {
        if (count[0] > hotShare * total && count[0] >= minChanges) {
          next.add(tenant);
        }
      });
    }
    surging = next.isEmpty() ? Set.of() : next;
    counts.clear();
    total = 0;
  }

  @Override
  public boolean test(long tenant) {
    return !surging.isEmpty() && surging.contains(tenant);
  }
}
