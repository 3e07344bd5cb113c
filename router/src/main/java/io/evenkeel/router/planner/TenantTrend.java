package io.evenkeel.router.planner;

/**
 * What the {@link OffsetSizeGovernor} remembers of one tenant between windows. A plain mutable class with public
 * fields, so that a Flink job can keep it in keyed state as a POJO.
 */
public final class TenantTrend {
  /** No time: never proposed, or not cooling. */
  public static final long NEVER = Long.MIN_VALUE;

  /** Windows in a row in which the tenant needed a larger L than its new rows get. */
  public int hotWindows;
  /** The end of the window whose proposal for this tenant was the last one. */
  public long lastProposedAt = NEVER;
  /** The start of the first window of the tenant's current cool spell (a smaller L would do), or {@link #NEVER}. */
  public long coolSince = NEVER;
  /** The L the tenant's new rows had during its cool spell: a spell ends when that L changes. */
  public int coolFrom;
  /** The highest share the tenant had during its cool spell. */
  public double coolPeakShare;

  void endCoolSpell() {
    coolSince = NEVER;
    coolFrom = 0;
    coolPeakShare = 0;
  }

  /** Whether nothing is left to remember once the rest period after {@code now} is over. */
  boolean idle(long now, long restMs) {
    return hotWindows == 0 && coolSince == NEVER && (lastProposedAt == NEVER || now - lastProposedAt >= restMs);
  }
}
