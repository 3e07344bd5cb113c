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
 */
public record ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
    double ramBufferMb, Set<String> hotAttributes, boolean logicalReplication) {
  public static final ShardSettings DEFAULTS = new ShardSettings(Durability.REQUEST, 200, 1_000, 30_000, 64);

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
  }

  private static void requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0; got: " + value);
    }
  }
}
