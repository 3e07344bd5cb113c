package io.evenkeel.shard.engine;

import io.evenkeel.shard.translog.Durability;
import java.util.Set;

/**
 * How every shard of a server writes, refreshes and commits.
 *
 * @param durability when an acknowledged write is on disk
 * @param syncIntervalMs how often the translog is fsynced with {@link Durability#INTERVAL}
 * @param refreshIntervalMs how often new writes become searchable
 * @param commitIntervalMs how often a Lucene commit lets the translog be trimmed
 * @param ramBufferMb the IndexWriter's RAM buffer per shard
 * @param hotAttributes attribute keys indexed as keyword fields {@code attr.<key>} (frequency-based indexing); the
 *     other keys stay only in the stored row. The list applies to rows indexed after it is set: change it only on
 *     new shards, or reindex
 * @param logicalReplication replicas on this server index every forwarded change themselves instead of copying the
 *     primary's segment files (for comparison: physical replication is the default)
 * @param writeCapacity the most changes a second a primary shard indexes, 0 for as many as it can: for experiments
 *     that need a shard to be a bottleneck ({@link WriteCapacity})
 */
public record ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
    double ramBufferMb, Set<String> hotAttributes, boolean logicalReplication, double writeCapacity) {
  public static final ShardSettings DEFAULTS = new ShardSettings(Durability.REQUEST, 200, 1_000, 30_000, 64);

  /** Settings without a write capacity: a shard indexes as fast as it can. */
  public ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
      double ramBufferMb, Set<String> hotAttributes, boolean logicalReplication) {
    this(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb, hotAttributes,
        logicalReplication, 0);
  }

  /** Settings with physical replication. */
  public ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
      double ramBufferMb, Set<String> hotAttributes) {
    this(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb, hotAttributes, false);
  }

  /** Settings without hot attribute keys. */
  public ShardSettings(
      Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs, double ramBufferMb) {
    this(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb, Set.of());
  }

  public ShardSettings {
    hotAttributes = Set.copyOf(hotAttributes);
    for (String key : hotAttributes) {
      if (key.isEmpty() || key.contains(";") || key.contains(":")) {
        throw new IllegalArgumentException("a hot attribute key is non-empty and has no ';' or ':'; got: '" + key + "'");
      }
    }
    requirePositive("syncIntervalMs", syncIntervalMs);
    requirePositive("refreshIntervalMs", refreshIntervalMs);
    requirePositive("commitIntervalMs", commitIntervalMs);
    if (!(ramBufferMb >= 1)) {
      throw new IllegalArgumentException("ramBufferMb must be >= 1; got: " + ramBufferMb);
    }
    if (!(writeCapacity >= 0)) {
      throw new IllegalArgumentException("writeCapacity must be >= 0 (0: none); got: " + writeCapacity);
    }
  }

  /** These settings with each primary shard indexing at most {@code changesPerSecond} (0: as fast as it can). */
  public ShardSettings withWriteCapacity(double changesPerSecond) {
    return new ShardSettings(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb,
        hotAttributes, logicalReplication, changesPerSecond);
  }

  private static void requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0; got: " + value);
    }
  }
}
