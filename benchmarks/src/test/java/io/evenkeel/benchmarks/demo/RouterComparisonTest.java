package io.evenkeel.benchmarks.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.benchmarks.trace.WriteTrace;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.RuleList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterComparisonTest {
  private static final int SHARDS = 64;

  @Test
  void dynamicHashingBalancesHotTenantsWhileSmallTenantsStayOnOneShard() {
    WriteTrace trace = WriteTrace.zipf(300_000, 20_000, 1.0, 7);
    List<RouterComparison.Outcome> outcomes =
        new RouterComparison(SHARDS, 8, 10, BalancePlanner.builder(SHARDS).build()).compare(trace, 10);
    RouterComparison.Outcome hashing = outcomes.get(0);
    RouterComparison.Outcome doubled = outcomes.get(1);
    RouterComparison.Outcome dynamic = outcomes.get(2);

    assertThat(hashing.maxOverMean(true)).isGreaterThan(2 * dynamic.maxOverMean(true));
    assertThat(dynamic.rules()).isPositive();
    // Only the few hot tenants beyond the top 10 fan out; the other thousands keep one shard each.
    assertThat(dynamic.meanFanOutSmallTenants()).isBetween(1.0, 1.01);
    assertThat(dynamic.meanFanOutTopTenants()).isGreaterThan(1.0);
    assertThat(doubled.meanFanOutSmallTenants()).isEqualTo(8.0);
    long routed = java.util.Arrays.stream(dynamic.writesPerShard()).sum();
    assertThat(routed).isEqualTo(trace.size());
  }

  @Test
  void learnedRulesNeverMoveARowAlreadyWritten() {
    WriteTrace trace = WriteTrace.zipf(100_000, 1_000, 1.2, 3);
    RuleList rules = new RouterComparison(SHARDS, 8, 10, BalancePlanner.builder(SHARDS).build()).learnRules(trace);
    // Every rule takes effect after the window that proposed it: a row keeps the shard the rules of its time gave it.
    RoutingPolicy finalPolicy = RoutingPolicy.dynamic(rules);
    for (int i = 0; i < trace.size(); i += 997) {
      long created = trace.createdTimes()[i];
      RuleList atWrite = RuleList.of(SHARDS,
          rules.rules().stream().filter(r -> r.effectiveTime() <= created).toList());
      assertThat(finalPolicy.shardFor(trace.tenants()[i], trace.rowIds()[i], created))
          .isEqualTo(RoutingPolicy.dynamic(atWrite).shardFor(trace.tenants()[i], trace.rowIds()[i], created));
    }
  }
}
