package io.evenkeel.benchmarks.demo;

import io.evenkeel.benchmarks.report.Stats;
import io.evenkeel.benchmarks.trace.WriteTrace;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.OffsetSizeProposal;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Routes one write trace under hashing, double hashing and dynamic secondary hashing and measures where it lands.
 *
 * <p>The dynamic policy learns as the paper's monitor does: after each window of writes, the planner looks at the
 * window's per-tenant counts and every proposal becomes a rule effective a little later (the commit protocol's
 * future effective time), so writes already routed keep their shard.
 */
public final class RouterComparison {
  /** What one policy did with the trace. */
  public record Outcome(
      String policy,
      long[] writesPerShard,
      long[] lastWindowWritesPerShard,
      double meanFanOutSmallTenants,
      double meanFanOutTopTenants,
      int rules) {
    public double maxOverMean(boolean lastWindow) {
      return Stats.maxOverMean(lastWindow ? lastWindowWritesPerShard : writesPerShard);
    }

    public double coefficientOfVariation(boolean lastWindow) {
      return Stats.coefficientOfVariation(lastWindow ? lastWindowWritesPerShard : writesPerShard);
    }
  }

  private final int numShards;
  private final int doubleHashingOffsetSize;
  private final int windows;
  private final BalancePlanner planner;

  public RouterComparison(int numShards, int doubleHashingOffsetSize, int windows, BalancePlanner planner) {
    this.numShards = numShards;
    this.doubleHashingOffsetSize = doubleHashingOffsetSize;
    this.windows = windows;
    this.planner = planner;
  }

  /** The rules the dynamic policy would commit over the trace, window by window. */
  public RuleList learnRules(WriteTrace trace) {
    int windowSize = trace.size() / windows;
    RuleList rules = RuleList.empty(numShards);
    Map<Long, Long> counts = new HashMap<>();
    for (int i = 0; i < trace.size(); i++) {
      counts.merge(trace.tenants()[i], 1L, Long::sum);
      boolean windowEnds = (i + 1) % windowSize == 0;
      if (windowEnds) {
        long now = trace.createdTimes()[i];
        long effective = now + Math.max(1, windowSize / 10);
        for (OffsetSizeProposal proposal : planner.plan(counts, rules, effective)) {
          rules = rules.append(Rule.grow(effective, proposal.proposedOffsetSize(), proposal.tenant()));
        }
        counts.clear();
      }
    }
    return rules;
  }

  public List<Outcome> compare(WriteTrace trace, int topTenants) {
    RuleList learned = learnRules(trace);
    return List.of(
        route(RoutingPolicy.hashing(numShards), 0, trace, topTenants),
        route(RoutingPolicy.doubleHashing(numShards, doubleHashingOffsetSize), 0, trace, topTenants),
        route(RoutingPolicy.dynamic(learned), learned.size(), trace, topTenants));
  }

  private Outcome route(RoutingPolicy policy, int rules, WriteTrace trace, int topTenants) {
    long[] all = new long[numShards];
    long[] last = new long[numShards];
    int lastWindowStart = trace.size() - trace.size() / windows;
    for (int i = 0; i < trace.size(); i++) {
      int shard = policy.shardFor(trace.tenants()[i], trace.rowIds()[i], trace.createdTimes()[i]);
      all[shard]++;
      if (i >= lastWindowStart) {
        last[shard]++;
      }
    }
    int tenants = trace.popularity().tenants();
    double top = 0;
    double small = 0;
    for (int rank = 1; rank <= tenants; rank++) {
      int fanOut = policy.shardsFor(trace.popularity().tenantAtRank(rank)).size();
      if (rank <= topTenants) {
        top += fanOut;
      } else {
        small += fanOut;
      }
    }
    return new Outcome(policy.name(), all, last, small / Math.max(1, tenants - topTenants), top / topTenants, rules);
  }
}
