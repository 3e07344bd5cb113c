package io.evenkeel.shard.cluster;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.schemas.ShardCopies;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The master's next step towards even servers, when the cluster is at rest: every shard has a live primary and its
 * full number of live, in-sync replicas, and no copy is moving. A server's load is the copies it holds, then the
 * primaries among them (a primary indexes every write; a replica copies segments). A step either moves a copy from
 * the server holding the most to the one holding the fewest (segment copying, then a drop) or, when the copies are
 * even to within one, hands a primary over to one of its in-sync replicas on a server holding at least two fewer
 * primaries (no shard copied whole; the old primary and the other replicas rejoin the new one). Each step lowers the sum of squared loads, so the steps end: with copies within one of each
 * other, and primaries as even as handovers to the existing replicas can make them.
 *
 * <p>One step at a time: the next is planned only once the cluster is at rest again, so at most one shard copies
 * files for the balance at any moment (a running stack keeps its bandwidth for writes and queries).
 */
final class Rebalancer {
  private Rebalancer() {}

  /** One step of the plan. */
  sealed interface Step {
    int shard();

    String from();

    String to();
  }

  /** {@code from}'s copy of {@code shard} (primary or replica) moves to {@code to}, which holds none. */
  record Move(int shard, String from, String to) implements Step {}

  /** {@code shard}'s primary moves from {@code from} to its in-sync replica on {@code to}, which becomes a replica. */
  record Handover(int shard, String from, String to) implements Step {}

  /** The next step, if the cluster is at rest and not yet even. */
  static Optional<Step> next(ClusterState state, int replicasPerShard) {
    if (state.servers().size() < 2 || state.shards().isEmpty() || !atRest(state, replicasPerShard)) {
      return Optional.empty();
    }
    // Counted once per server, by the state's own definitions (the add-server command prints the same).
    Map<String, Long> copies = state.servers().keySet().stream()
        .collect(Collectors.toMap(server -> server, state::copiesOn));
    Map<String, Long> primaries = state.servers().keySet().stream()
        .collect(Collectors.toMap(server -> server, state::primariesOn));
    Comparator<String> byLoad = Comparator.<String>comparingLong(copies::get).thenComparingLong(primaries::get)
        .thenComparing(Comparator.reverseOrder());
    String most = state.servers().keySet().stream().max(byLoad).orElseThrow();
    String fewest = state.servers().keySet().stream().min(byLoad).orElseThrow();
    if (copies.get(most) - copies.get(fewest) >= 2) {
      // A primary goes with the copy when the source also holds more primaries: the move then evens both.
      boolean primaryFirst = primaries.get(most) > primaries.get(fewest);
      List<ShardCopies> candidates = state.shards().values().stream()
          .filter(shard -> holds(shard, most) && !holds(shard, fewest)).toList();
      return candidates.stream()
          .min(Comparator.comparing((ShardCopies shard) -> most.equals(shard.getPrimary()) != primaryFirst)
              .thenComparingInt(ShardCopies::getShard))
          .map(shard -> new Move(shard.getShard(), most, fewest));
    }
    // Copies even: the handover between the servers whose primaries differ the most, through an in-sync replica.
    return state.shards().values().stream()
        .flatMap(shard -> shard.getInSync().stream()
            .filter(replica -> primaries.get(shard.getPrimary()) - primaries.get(replica) >= 2)
            .map(replica -> new Handover(shard.getShard(), shard.getPrimary(), replica)))
        .max(Comparator.<Handover>comparingLong(step -> primaries.get(step.from()) - primaries.get(step.to()))
            .thenComparing(Comparator.comparingInt(Handover::shard).reversed()))
        .map(Step.class::cast);
  }

  /** {@link ClusterState#atRest()}, with every shard holding exactly its wanted replicas. */
  static boolean atRest(ClusterState state, int replicasPerShard) {
    return state.atRest()
        && state.shards().values().stream().allMatch(shard -> shard.getReplicas().size() == replicasPerShard);
  }

  private static boolean holds(ShardCopies shard, String server) {
    return server.equals(shard.getPrimary()) || shard.getReplicas().contains(server);
  }
}
