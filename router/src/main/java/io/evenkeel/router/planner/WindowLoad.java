package io.evenkeel.router.planner;

import java.util.Map;

/**
 * What the monitor counted in one window, as the governor reads it.
 *
 * @param tenantWrites the writes of the tenants the monitor lists (the busiest, and every hot one)
 * @param totalWrites the writes of all tenants
 * @param shardWrites the writes each shard took, indexed by shard; all zero when the monitor did not count them
 * @param unlistedWritesBound the most any tenant not listed may have written: the least listed tenant's writes
 */
public record WindowLoad(long start, long end, Map<Long, Long> tenantWrites, long totalWrites, long[] shardWrites,
    long unlistedWritesBound) {
  public WindowLoad {
    if (end < start) {
      throw new IllegalArgumentException("a window ends before it starts: " + start + " > " + end);
    }
    tenantWrites = Map.copyOf(tenantWrites);
    shardWrites = shardWrites.clone();
  }

  /** A window whose unlisted tenants wrote at most as much as the least listed one. */
  public WindowLoad(long start, long end, Map<Long, Long> tenantWrites, long totalWrites, long[] shardWrites) {
    this(start, end, tenantWrites, totalWrites, shardWrites,
        tenantWrites.values().stream().mapToLong(Long::longValue).min().orElse(0));
  }

  @Override
  public long[] shardWrites() {
    return shardWrites.clone();
  }

  boolean lists(long tenant) {
    return tenantWrites.containsKey(tenant);
  }

  /** A listed tenant's share of all writes; of any other, the most it may have had. */
  double shareOf(long tenant) {
    if (totalWrites <= 0) {
      return 0;
    }
    return Math.min(1, tenantWrites.getOrDefault(tenant, unlistedWritesBound) / (double) totalWrites);
  }
}
