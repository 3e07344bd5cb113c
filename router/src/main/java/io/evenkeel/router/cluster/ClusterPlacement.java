package io.evenkeel.router.cluster;

import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.placement.ShardPlacement;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Placement as the cluster state in ZooKeeper says, followed live: a shard's primary moves with a promotion. */
public final class ClusterPlacement implements ShardPlacement {
  private final int numShards;
  private final ClusterStateClient cluster;

  public ClusterPlacement(int numShards, ClusterStateClient cluster) {
    this.numShards = numShards;
    this.cluster = cluster;
  }

  @Override
  public int numShards() {
    return numShards;
  }

  @Override
  public Optional<ShardAddress> primaryOf(int shard) {
    return cluster.current().livePrimary(shard).map(ShardAddress::parse);
  }

  @Override
  public Map<Integer, ShardAddress> primaries() {
    ClusterState state = cluster.current();
    Map<Integer, ShardAddress> primaries = new TreeMap<>();
    for (int shard = 0; shard < numShards; shard++) {
      int s = shard;
      state.livePrimary(shard).ifPresent(address -> primaries.put(s, ShardAddress.parse(address)));
    }
    return primaries;
  }
}
