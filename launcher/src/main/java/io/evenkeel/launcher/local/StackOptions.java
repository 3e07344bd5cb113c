package io.evenkeel.launcher.local;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code evenkeel local} was asked for.
 *
 * @param rate the replayer's base rate (changes/s), or 0 for an empty system ({@code --no-replay})
 * @param apiKeys the query service's key file, or null for a service without keys (or, with {@code secure}, a new
 *     admin key)
 * @param secure mutual TLS to the shard servers and API keys ({@link LocalSecurity})
 * @param replicas replicas of every shard, each on another shard server than the shard's other copies
 * @param replication how replicas follow their primaries: physical (segment copies) or logical (re-indexing)
 * @param shardWriteCapacity the most changes a second each primary shard indexes, or 0 for no limit
 * @param cdc the table a CDC runner captures, or null for none
 * @param jobArgs more arguments of the ingest job ({@code --job-option})
 */
record StackOptions(Path dataDir, StackPorts ports, int shards, String policy, double rate, double surgeFactor,
    double theta, String topic, Path apiKeys, boolean secure, int replicas, String replication,
    double shardWriteCapacity, CdcOptions cdc, List<String> jobArgs) {
  static final String ZOOKEEPER_ROOT = "/evenkeel/local";
  /** The ingest job's Kafka consumer group (its default). */
  static final String INGEST_GROUP = "evenkeel-ingest";
  /** Where the ingest job records the offsets it has written: the backlog and {@code load --wait} read them. */
  static final String WRITTEN_OFFSETS_GROUP = INGEST_GROUP + ".written";
  static final int TOPIC_PARTITIONS = 4;

  boolean replay() {
    return rate > 0;
  }

  Path logs() {
    return dataDir.resolve("logs");
  }
}
