package io.evenkeel.shard.engine;

import io.evenkeel.shard.index.HotAttributes;
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
 * @param hotAttributes attribute keys indexed as keyword fields {@code attr.<key>} (frequency-based indexing), the
 *     other keys staying only in the stored row: the server's list, which every shard reads at each write and the
 *     cluster's agreed list replaces while the server runs. Documents say which keys they indexed, so rows written
 *     under an older list are answered by a scan of their stored rows for the keys added since
 * @param logicalReplication replicas on this server index every forwarded change themselves instead of copying the
 *     primary's segment files (for comparison: physical replication is the default)
 * @param writeCapacity the most changes a second a primary shard indexes, 0 for as many as it can: for experiments
 *     that need a shard to be a bottleneck ({@link WriteCapacity})
 * @param reindexRate the most rows a second the server indexes again, over all its primaries, for hot keys listed
 *     after the rows were written (0: none; filters then scan those rows until a change of the row rewrites it)
 */
public record ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
    double ramBufferMb, HotAttributes hotAttributes, boolean logicalReplication, double writeCapacity,
    double reindexRate) {
  public static final ShardSettings DEFAULTS = new ShardSettings(Durability.REQUEST, 200, 1_000, 30_000, 64);
  /** Rows a second re-indexed by default: well below what a server indexes, so that ingest keeps most of it. */
  public static final double DEFAULT_REINDEX_RATE = 2_000;

  /** Settings starting with the list {@code hotAttributes}. */
  public ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
      double ramBufferMb, Set<String> hotAttributes, boolean logicalReplication, double writeCapacity) {
    this(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb,
        HotAttributes.of(hotAttributes), logicalReplication, writeCapacity, DEFAULT_REINDEX_RATE);
  }

  /** Settings without a write capacity: a shard indexes as fast as it can. */
  public ShardSettings(Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs,
      double ramBufferMb, Set<String> hotAttributes, boolean logicalReplication) {
    this(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb, hotAttributes,
        logicalReplication, 0.0);
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
    requirePositive("syncIntervalMs", syncIntervalMs);
    requirePositive("refreshIntervalMs", refreshIntervalMs);
    requirePositive("commitIntervalMs", commitIntervalMs);
    if (!(ramBufferMb >= 1)) {
      throw new IllegalArgumentException("ramBufferMb must be >= 1; got: " + ramBufferMb);
    }
    if (!(writeCapacity >= 0)) {
      throw new IllegalArgumentException("writeCapacity must be >= 0 (0: none); got: " + writeCapacity);
    }
    if (!(reindexRate >= 0)) {
      throw new IllegalArgumentException("reindexRate must be >= 0 (0: none); got: " + reindexRate);
    }
  }

  /** These settings with each primary shard indexing at most {@code changesPerSecond} (0: as fast as it can). */
  public ShardSettings withWriteCapacity(double changesPerSecond) {
    return new ShardSettings(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb,
        hotAttributes, logicalReplication, changesPerSecond, reindexRate);
  }

  /** These settings with the server indexing again at most {@code rowsPerSecond} (0: none). */
  public ShardSettings withReindexRate(double rowsPerSecond) {
    return new ShardSettings(durability, syncIntervalMs, refreshIntervalMs, commitIntervalMs, ramBufferMb,
        hotAttributes, logicalReplication, writeCapacity, rowsPerSecond);
  }

  private static void requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0; got: " + value);
    }
  }
}
