package io.evenkeel.benchmarks.simulator;

import io.evenkeel.benchmarks.report.Stats;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.OffsetSizeGovernor;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.workload.ZipfTenants;
import java.util.Arrays;
import java.util.DoubleSummaryStatistics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.rng.simple.RandomSource;

/**
 * A discrete-time simulation of the write path at any scale: writes generated at the scenario's rate by tenants with
 * Zipf(θ) shares, routed by a policy, queued at their shard and indexed within the shards' and servers' capacities
 * ({@link ShardQueues}), while a monitor counts each window's writes per tenant for the policy to learn from.
 *
 * <p>The routing is the real one (the router's {@link RoutingPolicy} and {@link BalancePlanner}); what is modelled is
 * the cost of a write (a capacity per shard and per server) and time (ticks). Every policy sees the same writes: the
 * workload's randomness comes from the scenario's seed alone.
 */
public final class Simulation {
  /** The policies every experiment compares, by name. */
  public static final List<String> POLICIES = List.of("hashing", "double-hashing", "dynamic", "logstore");
  private static final int TOP_TENANTS = 10;

  private final Scenario scenario;

  public Simulation(Scenario scenario) {
    this.scenario = scenario;
  }

  /** The policy of that name for this scenario. */
  SimulatedPolicy policy(String name) {
    return switch (name) {
      case "hashing" -> SimulatedPolicy.fixed(RoutingPolicy.hashing(scenario.shards()));
      case "double-hashing" -> SimulatedPolicy.fixed(
          RoutingPolicy.doubleHashing(scenario.shards(), scenario.doubleHashingOffsetSize()));
      case "dynamic" -> SimulatedPolicy.dynamic(
          BalancePlanner.builder(scenario.shards()).maxTenantShareOfShard(scenario.alpha()).build(),
          scenario.shards(), millis(scenario.effectiveDelaySeconds()), millis(scenario.windowSeconds()),
          OffsetSizeGovernor.Settings.DEFAULT); // the job's defaults
      case "logstore" -> new LogStoreRouting(scenario.shards(), millis(scenario.effectiveDelaySeconds()));
      default -> throw new IllegalArgumentException("no policy " + name + "; one of " + POLICIES);
    };
  }

  public SimulationResult run(String policyName) {
    SimulatedPolicy policy = policy(policyName);
    double tick = scenario.tickMillis();
    int ticks = (int) Math.round(scenario.durationSeconds() * 1000 / tick);
    int warmupTicks = (int) Math.round(scenario.warmupSeconds() * 1000 / tick);
    int windowTicks = Math.max(1, (int) Math.round(scenario.windowSeconds() * 1000 / tick));
    ShardQueues queues = new ShardQueues(scenario.shards(), scenario.servers(), scenario.shardCapacity(),
        scenario.serverCapacity(), tick, ticks, warmupTicks);
    ZipfTenants tenants = new ZipfTenants(RandomSource.XO_RO_SHI_RO_128_PP.create(scenario.seed()),
        scenario.tenants(), scenario.theta());
    long[] windowCounts = new long[scenario.tenants()];
    long[] shardCounts = new long[scenario.shards()];
    double[] timeline = new double[(int) Math.ceil(scenario.durationSeconds())];
    double carry = 0;
    double offered = 0;
    long rowId = 0;
    int nextArrival = 0;
    for (int t = 0; t < ticks; t++) {
      long now = Math.round(t * tick);
      while (nextArrival < scenario.hotspotArrivals().length
          && scenario.hotspotArrivals()[nextArrival] * 1000 <= now) {
        tenants.remap();
        nextArrival++;
      }
      double rate = scenario.rate() * (now < scenario.surgeSeconds() * 1000 ? scenario.surgeFactor() : 1);
      carry += rate * tick / 1000;
      int writes = (int) carry;
      carry -= writes;
      if (t >= warmupTicks) {
        offered += writes;
      }
      for (int i = 0; i < writes; i++) {
        long tenant = tenants.next();
        windowCounts[(int) tenant]++;
        int shard = policy.shardFor(tenant, rowId++, now);
        shardCounts[shard]++;
        queues.arrive(shard);
      }
      timeline[(int) (now / 1000)] += queues.serve();
      if ((t + 1) % windowTicks == 0) {
        policy.windowEnded(counted(windowCounts), shardCounts, now + Math.round(tick));
        Arrays.fill(windowCounts, 0);
        Arrays.fill(shardCounts, 0);
      }
    }
    queues.countWaiting();
    double measuredSeconds = (ticks - warmupTicks) * tick / 1000;
    double[] shards = perSecond(queues.served(), measuredSeconds);
    double[] servers = perSecond(queues.servedByServer(), measuredSeconds);
    DoubleSummaryStatistics sizes = Arrays.stream(queues.stored()).summaryStatistics();
    double top = 0;
    double others = 0;
    int sampled = 0;
    for (int rank = 1; rank <= scenario.tenants(); rank++) {
      if (rank <= TOP_TENANTS) {
        top += policy.fanOut(tenants.tenantAtRank(rank));
      } else if (rank % Math.max(1, scenario.tenants() / 1000) == 0) {
        others += policy.fanOut(tenants.tenantAtRank(rank));
        sampled++;
      }
    }
    return new SimulationResult(policy.name(), scenario, offered / measuredSeconds, Arrays.stream(shards).sum(),
        queues.delays().quantile(0.5), queues.delays().quantile(0.99), Stats.coefficientOfVariation(shards),
        Stats.coefficientOfVariation(servers), sizes.getMax() / Math.max(1, sizes.getMin()),
        top / Math.min(TOP_TENANTS, scenario.tenants()),
        sampled == 0 ? Double.NaN : others / sampled, policy.rules(), timeline);
  }

  /** The window's counts as the monitor reports them: tenants that wrote, with their writes. */
  private static Map<Long, Long> counted(long[] counts) {
    Map<Long, Long> byTenant = new HashMap<>();
    for (int tenant = 0; tenant < counts.length; tenant++) {
      if (counts[tenant] > 0) {
        byTenant.put((long) tenant, counts[tenant]);
      }
    }
    return byTenant;
  }

  private static long millis(double seconds) {
    return Math.round(seconds * 1000);
  }

  private static double[] perSecond(double[] counts, double seconds) {
    double[] rates = new double[counts.length];
    for (int i = 0; i < counts.length; i++) {
      rates[i] = counts[i] / seconds;
    }
    return rates;
  }
}
