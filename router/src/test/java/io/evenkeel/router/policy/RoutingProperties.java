package io.evenkeel.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.ShardSet;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Properties of dynamic secondary hashing over random rule histories. */
class RoutingProperties {
  private static final int TENANTS = 12;

  /** A random rule history for {@code numShards} shards, rules spread over [0, 10 000] ms. */
  record History(int numShards, List<Rule> rules) {
    RuleList ruleList() {
      return RuleList.of(numShards, rules);
    }
  }

  @Provide
  Arbitrary<History> histories() {
    return Arbitraries.integers().between(1, 40).flatMap(numShards -> {
      int maxExponent = Integer.numberOfTrailingZeros(Integer.highestOneBit(numShards));
      Arbitrary<Rule> rule = Combinators.combine(
              Arbitraries.longs().between(0, 10_000),
              Arbitraries.integers().between(0, maxExponent),
              Arbitraries.longs().between(0, TENANTS - 1).set().ofMinSize(1).ofMaxSize(4),
              Arbitraries.integers().between(0, 4))
          .as((time, exponent, tenants, kind) -> new Rule(
              time, 1 << exponent, tenants.stream().mapToLong(Long::longValue).toArray(), kind == 0));
      return rule.list().ofMaxSize(30).map(rules -> {
        List<Rule> sorted = new ArrayList<>(rules);
        sorted.sort((a, b) -> Long.compare(a.effectiveTime(), b.effectiveTime()));
        return new History(numShards, sorted);
      });
    });
  }

  @Property(tries = 500)
  void everyWriteLiesInTheQueryRangeOfAnyIntervalAroundIt(
      @ForAll("histories") History history,
      @ForAll @LongRange(min = 0, max = TENANTS - 1) long tenant,
      @ForAll long rowId,
      @ForAll @LongRange(min = -100, max = 10_100) long createdTime,
      @ForAll @IntRange(min = 0, max = 12_000) int before,
      @ForAll @IntRange(min = 0, max = 12_000) int after) {
    RoutingPolicy policy = RoutingPolicy.dynamic(history.ruleList());
    int shard = policy.shardFor(tenant, rowId, createdTime);
    assertThat(policy.shardsFor(tenant, createdTime - before, createdTime + after).contains(shard))
        .as("shard %d of a row created at %d", shard, createdTime)
        .isTrue();
    assertThat(policy.shardsFor(tenant).contains(shard)).isTrue();
    assertThat(policy.shardsFor(tenant, createdTime, createdTime).size())
        .isEqualTo(history.ruleList().offsetSizeFor(tenant, createdTime));
  }

  @Property(tries = 300)
  void updatesAndDeletesFindTheInsertsShardHoweverManyRulesFollow(
      @ForAll("histories") History earlier,
      @ForAll("histories") History later,
      @ForAll @LongRange(min = 0, max = TENANTS - 1) long tenant,
      @ForAll long rowId,
      @ForAll @LongRange(min = 0, max = 10_000) long createdTime) {
    RuleList atInsert = earlier.ruleList();
    int insertShard = RoutingPolicy.dynamic(atInsert).shardFor(tenant, rowId, createdTime);

    // The commit protocol only appends rules whose effective time lies after every routed row's creation time.
    RuleList now = atInsert;
    long after = Math.max(createdTime, atInsert.newestEffectiveTime()) + 1;
    for (Rule rule : later.rules()) {
      if (rule.offsetSize() <= atInsert.numShards()) {
        now = now.append(new Rule(after + rule.effectiveTime(), rule.offsetSize(), rule.tenants(), rule.coolDown()));
      }
    }
    assertThat(RoutingPolicy.dynamic(now).shardFor(tenant, rowId, createdTime)).isEqualTo(insertShard);
  }

  @Property(tries = 200)
  void shardRangesAreConsecutiveFromTheTenantsBaseShard(
      @ForAll("histories") History history, @ForAll @LongRange(min = 0, max = TENANTS - 1) long tenant) {
    RoutingPolicy dynamic = RoutingPolicy.dynamic(history.ruleList());
    RoutingPolicy hashing = RoutingPolicy.hashing(history.numShards());
    int base = hashing.shardsFor(tenant).shards()[0];
    assertThat(dynamic.shardsFor(tenant)).isEqualTo(ShardSet.of(new ShardRange(base,
        history.ruleList().maxOffsetSize(tenant), history.numShards())));
  }
}
