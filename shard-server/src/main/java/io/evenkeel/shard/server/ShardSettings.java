package io.evenkeel.shard.server;

import io.evenkeel.shard.translog.Durability;

/**
 * How every shard of a server writes, refreshes and commits.
 *
 * @param durability when an acknowledged write is on disk
 * @param syncIntervalMs how often the translog is fsynced with {@link Durability#INTERVAL}
 * @param refreshIntervalMs how often new writes become searchable
 * @param commitIntervalMs how often a Lucene commit lets the translog be trimmed
 * @param ramBufferMb the IndexWriter's RAM buffer per shard
 */
public record ShardSettings(
    Durability durability, long syncIntervalMs, long refreshIntervalMs, long commitIntervalMs, double ramBufferMb) {
  public static final ShardSettings DEFAULTS = new ShardSettings(Durability.REQUEST, 200, 1_000, 30_000, 64);

  public ShardSettings {
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
