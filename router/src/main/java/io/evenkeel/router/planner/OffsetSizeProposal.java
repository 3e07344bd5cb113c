package io.evenkeel.router.planner;

import io.evenkeel.router.rules.Rule;

/**
 * A planner's suggestion to move {@code tenant} from {@code currentOffsetSize} to {@code proposedOffsetSize} shards.
 *
 * @param share the tenant's observed share of all writes (or of storage), in [0, 1]
 * @param reason why, in words, for the audit topic and logs
 */
public record OffsetSizeProposal(
    long tenant, double share, int currentOffsetSize, int proposedOffsetSize, String reason) {

  /** A cool-down: the tenant's new rows get fewer shards (a rule that sets L rather than grows it). */
  public boolean coolDown() {
    return proposedOffsetSize < currentOffsetSize;
  }

  /** The rule that carries it out from {@code effectiveTime} on: a cool-down rule, or one that grows L. */
  public Rule rule(long effectiveTime) {
    return coolDown() ? Rule.coolDown(effectiveTime, proposedOffsetSize, tenant)
        : Rule.grow(effectiveTime, proposedOffsetSize, tenant);
  }
}
