package io.evenkeel.router.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.ShardTable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogStorePlannerTest {
  private static final int SHARDS = 8;
  private final ShardFormula formula = ShardFormula.standard(SHARDS);
  private final LogStorePlanner planner = new LogStorePlanner(formula);

  /** 100 small tenants of 10 writes each, on their base shards, and the given large ones. */
  private Map<Long, Long> writes(Map<Long, Long> large) {
    Map<Long, Long> writes = new HashMap<>();
    for (long tenant = 1_000; tenant < 1_100; tenant++) {
      writes.put(tenant, 10L);
    }
    writes.putAll(large);
    return writes;
  }

  private double[] loads(Map<Long, Long> writes, Map<Long, ShardTable> tables) {
    double[] loads = new double[SHARDS];
    writes.forEach((tenant, count) -> {
      ShardTable table = tables.get(tenant);
      if (table == null) {
        loads[formula.baseShard(tenant)] += count;
        return;
      }
      for (int i = 0; i < table.size(); i++) {
        loads[table.shards()[i]] += count * table.weights()[i];
      }
    });
    return loads;
  }

  @Test
  void aTenantThatOverloadsItsShardIsSpreadUntilEveryShardIsWithinItsCapacity() {
    Map<Long, Long> writes = writes(Map.of(7L, 1_000L));
    double[] before = loads(writes, Map.of());
    assertThat(planner.overloaded(before)).isTrue();

    Map<Long, ShardTable> tables = planner.plan(before, writes, Map.of());
    assertThat(tables).containsOnlyKeys(7L);
    ShardTable table = tables.get(7L);
    assertThat(table.size()).isBetween(2, SHARDS);
    assertThat(table.shards()).contains(formula.baseShard(7));
    assertThat(Arrays.stream(table.weights()).sum()).isCloseTo(1, within(1e-9));
    double[] after = loads(writes, tables);
    assertThat(planner.overloaded(after)).as("loads %s", Arrays.toString(after)).isFalse();
    assertThat(Arrays.stream(after).sum()).isCloseTo(2_000, within(1e-6));
  }

  @Test
  void tablesAreStickyAndATenantThatFitsStaysOnItsBaseShard() {
    Map<Long, Long> writes = writes(Map.of(7L, 1_000L, 8L, 60L));
    Map<Long, ShardTable> first = planner.plan(loads(writes, Map.of()), writes, Map.of());
    Map<Long, ShardTable> second = planner.plan(loads(writes, first), writes, first);
    assertThat(Arrays.stream(second.get(7L).shards()).boxed().toList()).as("no new shard once it fits")
        .isSubsetOf(Arrays.stream(first.get(7L).shards()).boxed().toList());
    assertThat(second.get(8L).shards()).containsExactly(formula.baseShard(8));
    assertThat(first).as("small tenants stay where they are").doesNotContainKey(1_000L);
  }

  @Test
  void onlyTablesThatMoveAShardOrAWeightBeyondTheToleranceAreChanges() {
    Map<Long, ShardTable> current = Map.of(7L, ShardTable.of(new int[] {1, 2}, new double[] {0.5, 0.5}));
    int home = formula.baseShard(8);
    Map<Long, ShardTable> planned = Map.of(
        7L, ShardTable.of(new int[] {1, 2}, new double[] {0.52, 0.48}),
        8L, ShardTable.of(new int[] {home}, new double[] {1}),
        9L, ShardTable.of(new int[] {formula.baseShard(9), (formula.baseShard(9) + 1) % SHARDS},
            new double[] {0.5, 0.5}));
    assertThat(planner.changes(planned, current).keySet()).as("a nudge and a tenant left home are no change")
        .containsExactly(9L);
    Map<Long, ShardTable> moved = Map.of(7L, ShardTable.of(new int[] {1, 2}, new double[] {0.6, 0.4}));
    assertThat(planner.changes(moved, current)).containsKey(7L);
  }

  @Test
  void evenLoadIsNotOverloadedAndOnlyTenantsAboveATwentiethOfAShardAreLarge() {
    assertThat(planner.overloaded(new double[] {10, 10, 10, 10, 10, 10, 10, 11.9})).isFalse();
    assertThat(planner.overloaded(new double[] {10, 10, 10, 10, 10, 10, 10, 14})).isTrue();
    assertThat(planner.overloaded(new double[SHARDS])).isFalse();
    assertThat(LogStorePlanner.largeShare(SHARDS)).isCloseTo(1.2 / 20 / SHARDS, within(1e-12));
  }
}
