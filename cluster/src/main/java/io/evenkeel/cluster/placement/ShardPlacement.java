package io.evenkeel.cluster.placement;

import java.util.Map;
import java.util.Optional;

/**
 * Which shard server holds each shard's primary: the one place writers and query routers read it from. Replicas and
 * failover extend it later; callers only ask for the primary.
 */
public interface ShardPlacement extends AutoCloseable {
  /** The {@code --placement} value that means "the cluster state in ZooKeeper". */
  String FROM_CLUSTER_STATE = "zookeeper";

  /** The number of shards N of the cluster. */
  int numShards();

  /** The server holding {@code shard}'s primary, if one is known now. */
  Optional<ShardAddress> primaryOf(int shard);

  /** Every shard with a known primary (a snapshot). */
  Map<Integer, ShardAddress> primaries();

  /** The server queries of {@code shard} go to: its primary, unless the placement prefers replicas. */
  default Optional<ShardAddress> readerOf(int shard) {
    return primaryOf(shard);
  }

  /** Releases what the placement follows its source with (nothing for a fixed one). */
  @Override
  default void close() {}

  /**
   * A fixed placement, e.g. {@code "127.0.0.1:7001=0-5,127.0.0.1:7002=6-11"}: each server with the shards it holds.
   */
  static ShardPlacement fixed(int numShards, String spec) {
    return StaticPlacement.parse(numShards, spec);
  }
}
