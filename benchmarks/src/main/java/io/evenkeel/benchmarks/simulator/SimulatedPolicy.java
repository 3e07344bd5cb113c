package io.evenkeel.benchmarks.simulator;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.OffsetSizeGovernor;
import io.evenkeel.router.planner.OffsetSizeProposal;
import io.evenkeel.router.planner.TenantTrend;
import io.evenkeel.router.planner.WindowLoad;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.RuleList;
import java.util.HashMap;
import java.util.Map;

/** A routing policy as the simulator drives it: it routes writes and may learn from the monitor's windows. */
interface SimulatedPolicy {
  String name();

  /** The shard of a row created at {@code now}. */
  int shardFor(long tenant, long rowId, long now);

  /** A monitor window has ended at {@code now}, having counted these writes per tenant and per shard. */
  void windowEnded(Map<Long, Long> writesByTenant, long[] shardWrites, long now);

  /** The shards a query over all of the tenant's rows visits. */
  int fanOut(long tenant);

  /** Routing rules made so far (for LogStore, the tables that changed: one rule each on the real stack). */
  int rules();

  /** Hashing or double hashing: one L for every tenant, nothing learned. */
  static SimulatedPolicy fixed(RoutingPolicy policy) {
    return new SimulatedPolicy() {
      @Override
      public String name() {
        return policy.name();
      }

      @Override
      public int shardFor(long tenant, long rowId, long now) {
        return policy.shardFor(tenant, rowId, now);
      }

      @Override
      public void windowEnded(Map<Long, Long> writesByTenant, long[] shardWrites, long now) {
      }

      @Override
      public int fanOut(long tenant) {
        return policy.shardsFor(tenant).size();
      }

      @Override
      public int rules() {
        return 0;
      }
    };
  }

  /**
   * Dynamic secondary hashing with the ingest job's hotspot detection: {@link OffsetSizeGovernor} over each window
   * (CheckHotSpot and ComputeOffsetSize, damped: two hot windows in a row, a minimum gain, cool-down with a
   * hysteresis band, a rest between proposals); a rule takes effect {@code effectiveDelayMillis} after the window
   * (the commit protocol's future effective time), so rows already written keep their shards.
   */
  static SimulatedPolicy dynamic(BalancePlanner planner, int numShards, long effectiveDelayMillis, long windowMillis,
      OffsetSizeGovernor.Settings settings) {
    return new SimulatedPolicy() {
      private final OffsetSizeGovernor governor = new OffsetSizeGovernor(planner, ShardFormula.standard(numShards),
          settings);
      private final Map<Long, TenantTrend> trends = new HashMap<>();
      private RuleList rules = RuleList.empty(numShards);
      private RoutingPolicy routing = RoutingPolicy.dynamic(rules);

      @Override
      public String name() {
        return "dynamic";
      }

      @Override
      public int shardFor(long tenant, long rowId, long now) {
        return routing.shardFor(tenant, rowId, now);
      }

      @Override
      public void windowEnded(Map<Long, Long> writesByTenant, long[] shardWrites, long now) {
        long total = writesByTenant.values().stream().mapToLong(Long::longValue).sum();
        WindowLoad window = new WindowLoad(now - windowMillis, now, writesByTenant, total, shardWrites);
        for (OffsetSizeProposal proposal : governor.decide(window, rules, trends)) {
          rules = rules.append(proposal.rule(now + effectiveDelayMillis));
        }
        routing = RoutingPolicy.dynamic(rules);
      }

      @Override
      public int fanOut(long tenant) {
        return routing.shardsFor(tenant).size();
      }

      @Override
      public int rules() {
        return rules.size();
      }
    };
  }
}
