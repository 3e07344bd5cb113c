package io.evenkeel.benchmarks.experiments;

import java.util.List;
import java.util.Locale;

/**
 * The real stack the write experiments run on and how long each point lasts: {@code bin/evenkeel local} with
 * {@code servers} shard servers holding {@code shards} primaries (no replicas), each primary indexing at most {@code
 * shardCapacity} changes a second (its {@code --shard-write-capacity}), so that a skewed tenant overloads a shard on
 * one small machine as on ESDB's cluster.
 *
 * @param jitWarmupSeconds before the first replay measured on a fresh stack, how long to replay unmeasured even
 *     traffic (θ = 0, half the capacity): a fresh stack's JVMs spend their first minutes compiling, which on 2 cores
 *     would fall on the first point's warm-up
 * @param warmupSeconds the part of a replay not measured: the dynamic policy's first rules take effect in it (two
 *     10 s monitor windows, then T = 10 s)
 * @param graceSeconds after a replay, how long to wait for the probes still unseen before counting them at their
 *     wait so far
 * @param probeEvery every how many new rows one is a probe whose write-to-searchable delay is measured
 * @param adaptivitySeconds how long the adaptivity replay lasts: a new group of hot tenants arrives at a third and
 *     at two thirds of it
 */
record StackSetup(int servers, int shards, double shardCapacity, int tenants, double jitWarmupSeconds,
    double warmupSeconds,
    double measureSeconds, double graceSeconds, int probeEvery, List<String> policies, double[] rateFractions,
    double[] thetas, double adaptivitySeconds) {

  /**
   * 2 servers, 16 shards of 125 changes/s, 2,000 tenants; 75 s replays, 30 s of them warm-up, after 45 s of
   * compiling. The cluster's 2,000 rows/s leave room on 2 cores: at 1,600 rows/s a fresh stack (compiling) used both.
   */
  static StackSetup full() {
    return new StackSetup(2, 16, 125, 2_000, 45, 30, 45, 15, 25, List.of("hashing", "double:8", "dynamic",
        "logstore"),
        new double[] {0.5, 1.0, 1.25}, new double[] {0, 1, 2}, 150);
  }

  /**
   * Seconds-long points for the test suite: 1 server, 4 shards of 100 changes/s, one point per experiment, under
   * LogStore's routing only (the calibration runs hashing; dynamic secondary hashing, the default, is what the
   * other stack tests run): each point starts a stack.
   */
  static StackSetup smoke() {
    return new StackSetup(1, 4, 100, 200, 0, 3, 6, 5, 5, List.of("logstore"), new double[] {1.0}, new double[] {2},
        12);
  }

  /** The same setup with another warm-up (none: every second of a replay is measured). */
  StackSetup withWarmup(double seconds) {
    return new StackSetup(servers, shards, shardCapacity, tenants, jitWarmupSeconds, seconds, measureSeconds,
        graceSeconds, probeEvery, policies, rateFractions, thetas, adaptivitySeconds);
  }

  /** The same setup under other policies. */
  StackSetup withPolicies(List<String> others) {
    return new StackSetup(servers, shards, shardCapacity, tenants, jitWarmupSeconds, warmupSeconds, measureSeconds,
        graceSeconds, probeEvery, others, rateFractions, thetas, adaptivitySeconds);
  }

  /** What the shards index together a second: the rate every experiment is scaled to. */
  double clusterCapacity() {
    return shards * shardCapacity;
  }

  /** {@code bin/evenkeel local}'s options for a run under {@code policy}. */
  List<String> localArgs(String policy) {
    return List.of("--shard-servers", Integer.toString(servers), "--shards", Integer.toString(shards), "--replicas",
        "0", "--policy", policy, "--shard-write-capacity", String.format(Locale.ROOT, "%.0f", shardCapacity));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%d shard servers, %d shards of %,.0f changes/s each (cluster %,.0f/s), no"
        + " replicas, %,d tenants; each stack first replays %.0f s unmeasured, then replays of %.0f s (%.0f s"
        + " warm-up), every %dth new row a probe", servers, shards, shardCapacity, clusterCapacity(), tenants,
        jitWarmupSeconds, warmupSeconds + measureSeconds, warmupSeconds, probeEvery);
  }
}
