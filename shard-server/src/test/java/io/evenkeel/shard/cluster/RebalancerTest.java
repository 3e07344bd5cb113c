package io.evenkeel.shard.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.schemas.CopyMove;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardServerInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The master's plan, step by step, with every step carried out as the cluster would (the target's copy in sync, the
 * source's dropped): from any valid layout, with servers added, the steps end, and end even.
 */
class RebalancerTest {

  @Test
  void aFourthServerReceivesItsShareOfCopiesAndPrimaries() {
    // Three servers with 4 primaries each and the replicas of another's: 8 copies each.
    Map<Integer, ShardCopies> shards = new TreeMap<>();
    for (int shard = 0; shard < 12; shard++) {
      shards.put(shard, copies(shard, server(shard / 4), List.of(server((shard / 4 + 1) % 3))));
    }
    List<String> servers = List.of(server(0), server(1), server(2), server(3));
    assertThat(Rebalancer.next(state(servers.subList(0, 3), shards), 1)).as("three even servers").isEmpty();

    List<Rebalancer.Step> steps = runToRest(servers, shards, 1);
    assertThat(copiesPer(servers, shards, true)).containsOnly(6);
    assertThat(copiesPer(servers, shards, false)).containsOnly(3);
    assertThat(steps).as("each of the 6 copies moved once, primaries with their copy").hasSize(6)
        .allMatch(step -> step.to().equals(server(3)) && step instanceof Rebalancer.Move);
  }

  @Test
  void nothingMovesWhileAShardIsNotAtRest() {
    Map<Integer, ShardCopies> shards = new TreeMap<>();
    for (int shard = 0; shard < 4; shard++) {
      shards.put(shard, copies(shard, server(0), List.of(server(1))));
    }
    List<String> servers = List.of(server(0), server(1), server(2));
    assertThat(Rebalancer.next(state(servers, shards), 1)).isPresent();

    ShardCopies catchingUp = ShardCopies.newBuilder(shards.get(2)).setInSync(List.of()).build();
    assertThat(Rebalancer.next(state(servers, with(shards, catchingUp)), 1)).as("a replica not in sync").isEmpty();
    ShardCopies moving = ShardCopies.newBuilder(shards.get(2)).setReplicas(List.of(server(1), server(2)))
        .setMove(CopyMove.newBuilder().setFrom(server(1)).setTo(server(2)).setStarted(0).build()).build();
    assertThat(Rebalancer.next(state(servers, with(shards, moving)), 1)).as("a move under way").isEmpty();
    assertThat(Rebalancer.next(state(List.of(server(1), server(2)), shards), 1)).as("a primary gone").isEmpty();
  }

  @Property(tries = 300)
  void fromAnyLayoutTheStepsEndEven(@ForAll @IntRange(min = 1, max = 5) int initialServers,
      @ForAll @IntRange(min = 1, max = 3) int added, @ForAll @IntRange(min = 1, max = 24) int shardCount,
      @ForAll @IntRange(min = 0, max = 2) int wantedReplicas, @ForAll long seed) {
    int replicas = Math.min(wantedReplicas, initialServers - 1);
    Random random = new Random(seed);
    Map<Integer, ShardCopies> shards = new TreeMap<>();
    for (int shard = 0; shard < shardCount; shard++) {
      List<String> holders = new ArrayList<>();
      for (int i = 0; i < initialServers; i++) {
        holders.add(server(i));
      }
      Collections.shuffle(holders, random);
      shards.put(shard, copies(shard, holders.get(0), holders.subList(1, 1 + replicas)));
    }
    List<String> servers = new ArrayList<>();
    for (int i = 0; i < initialServers + added; i++) {
      servers.add(server(i));
    }

    List<Rebalancer.Step> steps = runToRest(servers, shards, replicas);

    List<Integer> copies = copiesPer(servers, shards, true);
    IntSummaryStatistics copyStats = copies.stream().mapToInt(Integer::intValue).summaryStatistics();
    assertThat(copyStats.getMax() - copyStats.getMin()).as("copies per server %s", copies).isLessThanOrEqualTo(1);
    List<Integer> primaries = copiesPer(servers, shards, false);
    IntSummaryStatistics primaryStats = primaries.stream().mapToInt(Integer::intValue).summaryStatistics();
    // Primaries even out through their in-sync replicas; a server holding no replica of the busiest one's primaries
    // cannot take one without a copy, which would unbalance the copies again.
    assertThat(primaryStats.getMax() - primaryStats.getMin()).as("primaries per server %s (steps %s)", primaries,
        steps).isLessThanOrEqualTo(replicas == 0 ? 1 : 2);
    for (ShardCopies shard : shards.values()) {
      List<String> holders = new ArrayList<>(shard.getReplicas());
      holders.add(shard.getPrimary());
      assertThat(holders).as("shard %d on distinct servers", shard.getShard()).doesNotHaveDuplicates()
          .hasSize(1 + replicas);
    }
  }

  /** Plans and carries out steps until the plan has none; answers the steps. */
  private static List<Rebalancer.Step> runToRest(List<String> servers, Map<Integer, ShardCopies> shards,
      int replicas) {
    List<Rebalancer.Step> steps = new ArrayList<>();
    for (Optional<Rebalancer.Step> step = Rebalancer.next(state(servers, shards), replicas); step.isPresent();
        step = Rebalancer.next(state(servers, shards), replicas)) {
      assertThat(steps).as("the plan ends").hasSizeLessThan(shards.size() * (1 + replicas) * servers.size());
      steps.add(step.get());
      shards.put(step.get().shard(), carryOut(step.get(), shards.get(step.get().shard())));
    }
    return steps;
  }

  /** The shard's copies once {@code step} completed. */
  private static ShardCopies carryOut(Rebalancer.Step step, ShardCopies copies) {
    List<String> replicas = new ArrayList<>(copies.getReplicas());
    String primary = copies.getPrimary();
    if (step instanceof Rebalancer.Handover) {
      assertThat(replicas).contains(step.to());
      replicas.set(replicas.indexOf(step.to()), step.from());
      primary = step.to();
    } else if (step.from().equals(primary)) {
      assertThat(replicas).doesNotContain(step.to());
      primary = step.to();
    } else {
      assertThat(replicas).contains(step.from()).doesNotContain(step.to());
      assertThat(primary).isNotEqualTo(step.to());
      replicas.set(replicas.indexOf(step.from()), step.to());
    }
    return copies(copies.getShard(), primary, replicas);
  }

  /** Copies (all, or primaries only) per server, in the order of {@code servers}. */
  private static List<Integer> copiesPer(List<String> servers, Map<Integer, ShardCopies> shards,
      boolean withReplicas) {
    Map<String, Integer> count = new HashMap<>();
    for (ShardCopies shard : shards.values()) {
      count.merge(shard.getPrimary(), 1, Integer::sum);
      if (withReplicas) {
        shard.getReplicas().forEach(replica -> count.merge(replica, 1, Integer::sum));
      }
    }
    return servers.stream().map(server -> count.getOrDefault(server, 0)).toList();
  }

  private static Map<Integer, ShardCopies> with(Map<Integer, ShardCopies> shards, ShardCopies changed) {
    Map<Integer, ShardCopies> all = new TreeMap<>(shards);
    all.put(changed.getShard(), changed);
    return all;
  }

  private static ShardCopies copies(int shard, String primary, List<String> replicas) {
    return ShardCopies.newBuilder().setShard(shard).setPrimary(primary).setTerm(1).setReplicas(List.copyOf(replicas))
        .setInSync(List.copyOf(replicas)).build();
  }

  private static ClusterState state(List<String> servers, Map<Integer, ShardCopies> shards) {
    Map<String, ShardServerInfo> live = new HashMap<>();
    servers.forEach(server -> live.put(server, ShardServerInfo.newBuilder().setAddress(server).setStarted(0).build()));
    return new ClusterState(live, shards, Map.of());
  }

  private static String server(int i) {
    return "127.0.0.1:" + (7710 + i);
  }
}
