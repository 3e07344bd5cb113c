package io.evenkeel.ingest.settings;

import io.evenkeel.router.planner.OffsetSizeGovernor;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import picocli.CommandLine.Option;

/**
 * The ingest job's flags of its balancer (the monitor's window, the planner's alpha and the detector's damping) and
 * of the rule commit protocol. A picocli mixin.
 */
public final class BalancerOptions {
  @Option(names = "--monitor-window-ms",
      description = "Tumbling window of the tenant monitor. (default: ${DEFAULT-VALUE})")
  private long monitorWindowMs = 10_000;

  @Option(names = "--alpha", description = "The planner's alpha (maxTenantShareOfShard). (default: ${DEFAULT-VALUE})")
  private double maxTenantShareOfShard = 0.25;

  @Option(names = "--proposal-rest-ms",
      description = "A tenant is proposed again only after this rest period. (default: ${DEFAULT-VALUE})")
  private long proposalRestMs = OffsetSizeGovernor.Settings.DEFAULT.restMs();

  @Option(names = "--cool-down-ms",
      description = "A widened tenant is narrowed once a smaller L has done for this long. (default: ${DEFAULT-VALUE})")
  private long coolDownMs = OffsetSizeGovernor.Settings.DEFAULT.coolDownMs();

  @Option(names = "--cool-band",
      description = "Hysteresis: a tenant is narrowed only to an L that keeps its share of each shard within this"
          + " fraction of the hot threshold, in (0, 1]. (default: ${DEFAULT-VALUE})")
  private double coolBand = OffsetSizeGovernor.Settings.DEFAULT.coolBand();

  @Option(names = "--min-gain",
      description = "A tenant is widened only when the hottest shard it touches would carry at least this fraction"
          + " less, in [0, 1). (default: ${DEFAULT-VALUE})")
  private double minGain = OffsetSizeGovernor.Settings.DEFAULT.minGain();

  @Option(names = "--effective-delay-ms", description = "T of the rule commit protocol. (default: ${DEFAULT-VALUE})")
  private long effectiveDelayMs = RuleProtocolConfig.DEFAULT_EFFECTIVE_DELAY.toMillis();

  @Option(names = "--max-clock-skew-ms",
      description = "How far ahead of this job's clock a row's created_time may be; below T/2."
          + " (default: ${DEFAULT-VALUE})")
  private long maxClockSkewMs = RuleProtocolConfig.DEFAULT_MAX_CLOCK_SKEW.toMillis();

  /** The flags as parsed, unchecked. */
  BalancerSettings settings() {
    return new BalancerSettings(monitorWindowMs, maxTenantShareOfShard, proposalRestMs, coolDownMs, coolBand, minGain,
        effectiveDelayMs, maxClockSkewMs);
  }
}
