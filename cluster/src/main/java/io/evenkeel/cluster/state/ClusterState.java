package io.evenkeel.cluster.state;

import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardServerInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One consistent look at the cluster state: the live shard servers (by address) and each shard's copies, with the
 * znode version each was read at (for compare-and-set updates).
 */
public record ClusterState(Map<String, ShardServerInfo> servers, Map<Integer, ShardCopies> shards,
    Map<Integer, Integer> versions) {
  public static final ClusterState EMPTY = new ClusterState(Map.of(), Map.of(), Map.of());

  public ClusterState {
    servers = Map.copyOf(servers);
    shards = new TreeMap<>(shards);
    versions = Map.copyOf(versions);
  }

  public boolean live(String server) {
    return server != null && servers.containsKey(server);
  }

  public Optional<ShardCopies> copies(int shard) {
    return Optional.ofNullable(shards.get(shard));
  }

  /** The address of {@code shard}'s primary, if the shard has one and its server is alive. */
  public Optional<String> livePrimary(int shard) {
    ShardCopies copies = shards.get(shard);
    return copies == null || !live(copies.getPrimary()) ? Optional.empty() : Optional.of(copies.getPrimary());
  }

  /**
   * Whether every shard has a live primary, every replica is live and in sync, and no copy is moving: the master
   * plans its next rebalancing step only then, and a cluster that stays so has none to take.
   */
  public boolean atRest() {
    for (ShardCopies copies : shards.values()) {
      if (copies.getMove() != null || !live(copies.getPrimary())
          || !copies.getReplicas().stream().allMatch(replica -> live(replica) && copies.getInSync().contains(replica))) {
        return false;
      }
    }
    return true;
  }

  /** The shards {@code server} holds a copy of (primary or replica). */
  public long copiesOn(String server) {
    return shards.values().stream()
        .filter(copies -> server.equals(copies.getPrimary()) || copies.getReplicas().contains(server)).count();
  }

  /** The shards whose primary is on {@code server}. */
  public long primariesOn(String server) {
    return shards.values().stream().filter(copies -> server.equals(copies.getPrimary())).count();
  }

  /** The replicas of {@code shard} whose servers are alive. */
  public List<String> liveReplicas(int shard) {
    ShardCopies copies = shards.get(shard);
    return copies == null ? List.of() : copies.getReplicas().stream().filter(this::live).toList();
  }
}
