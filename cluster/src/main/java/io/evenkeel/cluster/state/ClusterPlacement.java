package io.evenkeel.cluster.state;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;

/**
 * Placement as the cluster state in ZooKeeper says, followed live: a shard's primary moves with a promotion. Reads go
 * to the primary, or with {@link #preferReplicas} to a live in-sync replica when there is one (spread by shard).
 */
public final class ClusterPlacement implements ShardPlacement {
  private final int numShards;
  private final ClusterStateClient cluster;
  private final boolean preferReplicas;
  private final AutoCloseable owned;

  public ClusterPlacement(int numShards, ClusterStateClient cluster) {
    this(numShards, cluster, false, null);
  }

  private ClusterPlacement(int numShards, ClusterStateClient cluster, boolean preferReplicas, AutoCloseable owned) {
    this.numShards = numShards;
    this.cluster = cluster;
    this.preferReplicas = preferReplicas;
    this.owned = owned;
  }

  /**
   * Follows the cluster state under {@code root} with its own client of ZooKeeper, which {@link #close} closes; waits
   * (up to {@code timeout}) until every shard has a live primary.
   */
  public static ClusterPlacement open(CuratorFramework client, String root,
      int numShards, boolean preferReplicas, Duration timeout) throws Exception {
    ClusterStateClient cluster = new ClusterStateClient(client, root);
    AutoCloseable both = () -> {
      cluster.close();
      client.close();
    };
    try {
      cluster.start();
      ClusterPlacement placement = new ClusterPlacement(numShards, cluster, preferReplicas, both);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (placement.primaries().size() < numShards) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cluster state under " + root + " has live primaries for "
              + placement.primaries().keySet() + " of " + numShards + " shards after " + timeout.toSeconds() + " s");
        }
        Thread.sleep(100);
      }
      return placement;
    } catch (Exception e) {
      both.close();
      throw e;
    }
  }

  /** The cluster state as last read from ZooKeeper. */
  public ClusterState state() {
    return cluster.current();
  }

  @Override
  public Optional<ShardAddress> readerOf(int shard) {
    if (preferReplicas) {
      ClusterState state = cluster.current();
      List<String> inSync = state.copies(shard).map(copies -> copies.getInSync().stream().filter(state::live)
          .toList()).orElse(List.of());
      if (!inSync.isEmpty()) {
        return Optional.of(ShardAddress.parse(inSync.get(shard % inSync.size())));
      }
    }
    return primaryOf(shard);
  }

  @Override
  public void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the cluster state client failed", e);
      }
    }
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
