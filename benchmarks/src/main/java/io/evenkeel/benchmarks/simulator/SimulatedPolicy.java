package io.evenkeel.benchmarks.simulator;

import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** A routing policy as the simulator drives it: it routes writes and may learn from the monitor's windows. */
interface SimulatedPolicy {
  String name();

  /** The shard of a row created at {@code now}. */
  int shardFor(long tenant, long rowId, long now);

  /** A monitor window has ended at {@code now}, having counted these writes per tenant. */
  void windowEnded(Map<Long, Long> writesByTenant, long now);

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
      public void windowEnded(Map<Long, Long> writesByTenant, long now) {
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
   * Dynamic secondary hashing with the ingest job's hotspot detection: {@link BalancePlanner}'s CheckHotSpot and
   * ComputeOffsetSize over each window, a tenant proposed when hot in two windows in a row, needing a larger L than
   * its rules give, and not proposed within the rest period; the rule takes effect {@code effectiveDelayMillis} after
   * the window (the commit protocol's future effective time), so rows already written keep their shards.
   */
  static SimulatedPolicy dynamic(BalancePlanner planner, int numShards, long effectiveDelayMillis, long restMillis) {
    return new SimulatedPolicy() {
      private RuleList rules = RuleList.empty(numShards);
      private RoutingPolicy routing = RoutingPolicy.dynamic(rules);
      private final Map<Long, Integer> hotStreaks = new HashMap<>();
      private final Map<Long, Long> lastProposedAt = new HashMap<>();

      @Override
      public String name() {
        return "dynamic";
      }

      @Override
      public int shardFor(long tenant, long rowId, long now) {
        return routing.shardFor(tenant, rowId, now);
      }

      @Override
      public void windowEnded(Map<Long, Long> writesByTenant, long now) {
        double total = writesByTenant.values().stream().mapToLong(Long::longValue).sum();
        Set<Long> hotNow = new HashSet<>();
        writesByTenant.forEach((tenant, writes) -> {
          double share = writes / total;
          if (!planner.checkHotSpot(share)) {
            return;
          }
          hotNow.add(tenant);
          int streak = hotStreaks.merge(tenant, 1, Integer::sum);
          int current = rules.offsetSizeFor(tenant, Long.MAX_VALUE);
          int proposed = planner.computeOffsetSize(share);
          Long last = lastProposedAt.get(tenant);
          if (streak >= 2 && proposed > current && (last == null || now - last >= restMillis)) {
            lastProposedAt.put(tenant, now);
            rules = rules.append(Rule.grow(now + effectiveDelayMillis, proposed, tenant));
          }
        });
        hotStreaks.keySet().retainAll(hotNow);
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
