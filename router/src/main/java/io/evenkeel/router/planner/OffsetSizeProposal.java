package io.evenkeel.router.planner;

/**
 * A planner's suggestion to move {@code tenant} from {@code currentOffsetSize} to {@code proposedOffsetSize} shards.
 *
 * @param share the tenant's observed share of all writes (or of storage), in [0, 1]
 * @param reason why, in words, for the audit topic and logs
 */
public record OffsetSizeProposal(
    long tenant, double share, int currentOffsetSize, int proposedOffsetSize, String reason) {}
