package io.evenkeel.ingest.settings;

import io.evenkeel.router.planner.OffsetSizeGovernor;
import java.io.Serializable;

/**
 * How the job balances: the monitor's window, the planner's alpha (the most a tenant may take of a shard), the
 * detector's damping (rest between proposals, cool-down, cool band, minimum gain), and the rule commit protocol's
 * effective delay T and the clock skew it allows rows.
 */
public record BalancerSettings(long monitorWindowMs, double maxTenantShareOfShard, long proposalRestMs,
    long coolDownMs, double coolBand, double minGain, long effectiveDelayMs, long maxClockSkewMs)
    implements Serializable {
  /** How the hotspot detector damps its proposals: the settings above, and two hot windows in a row. */
  public OffsetSizeGovernor.Settings governorSettings() {
    return new OffsetSizeGovernor.Settings(OffsetSizeGovernor.Settings.DEFAULT.hotWindows(), proposalRestMs,
        coolDownMs, coolBand, minGain);
  }
}
