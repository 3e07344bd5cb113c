package io.evenkeel.cluster.options;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.cluster.state.ClusterPlacement;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import org.apache.curator.RetryPolicy;

/**
 * The shards a process reads or writes, as {@link PlacementOptions} give them.
 *
 * @param numShards the number of shards N of the cluster; 0 when not given
 * @param placement where the shards' primaries are: {@code host:port=shards,...}, or {@link
 *     ShardPlacement#FROM_CLUSTER_STATE}; null when not given
 */
public record PlacementSettings(int numShards, String placement) implements Serializable {
  /** Whether the placement is the cluster state in ZooKeeper, followed live, rather than fixed. */
  public boolean fromClusterState() {
    return ShardPlacement.FROM_CLUSTER_STATE.equals(placement);
  }

  /** These settings; throws naming both flags unless both were given. */
  public PlacementSettings requireGiven() {
    if (numShards <= 0 || placement == null) {
      throw new IllegalArgumentException(PlacementOptions.SHARDS + " and " + PlacementOptions.PLACEMENT
          + " are required");
    }
    return this;
  }

  /**
   * The placement to read or write by: fixed, or the cluster state followed live through a client of {@code
   * zookeeper} (waiting up to a minute for every shard's primary; reads go to replicas if {@code preferReplicas}).
   * The caller closes it.
   */
  public ShardPlacement open(ZooKeeperSettings zookeeper, RetryPolicy retry, boolean preferReplicas)
      throws Exception {
    if (!fromClusterState()) {
      return ShardPlacement.fixed(numShards, placement);
    }
    return ClusterPlacement.open(zookeeper.startClient(retry), zookeeper.root(), numShards, preferReplicas,
        Duration.ofMinutes(1));
  }

  /** These settings as the flags of another process; what was not given is left out. */
  public List<String> toArgs() {
    return new FlagArgs().add(PlacementOptions.SHARDS, numShards > 0 ? numShards : null)
        .add(PlacementOptions.PLACEMENT, placement).toList();
  }
}
