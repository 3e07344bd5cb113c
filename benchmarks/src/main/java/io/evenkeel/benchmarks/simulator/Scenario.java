package io.evenkeel.benchmarks.simulator;

import java.util.Arrays;
import java.util.Locale;

/**
 * One simulated run: the cluster (servers, shards and their capacities), the workload (tenants with Zipf(θ) write
 * shares, a generating rate with a kickoff surge, hotspot groups that arrive mid-run) and the balancer's settings.
 *
 * @param shardCapacity writes a second one shard indexes (one indexing thread)
 * @param serverCapacity writes a second the shards of one server index together (its cores); 0 for no limit
 * @param rate the generating rate, writes a second
 * @param surgeFactor the rate is this many times higher for the first {@code surgeSeconds} (the kickoff)
 * @param hotspotArrivals seconds into the run at which a new group of hot tenants arrives (the popularity ranks are
 *     dealt to other tenants)
 * @param windowSeconds the monitor's window
 * @param effectiveDelaySeconds how far ahead of the window's end a rule takes effect (the commit protocol's T)
 * @param alpha the planner's α: the most of an average shard's load one tenant may put on each of its shards
 */
public record Scenario(
    int servers,
    int shards,
    int tenants,
    double theta,
    double shardCapacity,
    double serverCapacity,
    double rate,
    double surgeFactor,
    double surgeSeconds,
    double[] hotspotArrivals,
    double durationSeconds,
    double warmupSeconds,
    double tickMillis,
    double windowSeconds,
    double effectiveDelaySeconds,
    double alpha,
    int doubleHashingOffsetSize,
    long seed) {

  /**
   * ESDB's scale: 8 servers, 512 shards, 100,000 tenants; the balancer as the ingest job's defaults have it (a 10 s
   * monitor window, T = 10 s, α = 0.25). Uncalibrated capacities: 2,000 rows a second for one shard's indexing
   * thread, sixteen such threads a server ({@link #withCapacities} sets measured ones).
   */
  public static Scenario paper() {
    return new Scenario(8, 512, 100_000, 1.0, 2_000, 16 * 2_000, 0, 1, 0, new double[0], 180, 60, 50, 10, 10, 0.25,
        8, 11);
  }

  /** The same run on shards and servers of these capacities (writes a second). */
  public Scenario withCapacities(double shard, double server) {
    return new Scenario(servers, shards, tenants, theta, shard, server, rate, surgeFactor, surgeSeconds,
        hotspotArrivals, durationSeconds, warmupSeconds, tickMillis, windowSeconds, effectiveDelaySeconds, alpha,
        doubleHashingOffsetSize, seed);
  }

  /** A seconds-long run for the test suite: 4 servers, 32 shards, 2,000 tenants. */
  public static Scenario smoke() {
    return new Scenario(4, 32, 2_000, 1.0, 500, 4 * 500, 0, 1, 0, new double[0], 40, 10, 50, 2, 2, 0.25, 8, 11);
  }

  /** What the cluster indexes a second with every shard busy: the rate all experiments are scaled to. */
  public double clusterCapacity() {
    double byShards = shardCapacity * shards;
    return serverCapacity <= 0 ? byShards : Math.min(byShards, serverCapacity * servers);
  }

  public Scenario withTheta(double newTheta) {
    return new Scenario(servers, shards, tenants, newTheta, shardCapacity, serverCapacity, rate, surgeFactor,
        surgeSeconds, hotspotArrivals, durationSeconds, warmupSeconds, tickMillis, windowSeconds,
        effectiveDelaySeconds, alpha, doubleHashingOffsetSize, seed);
  }

  public Scenario withRate(double newRate) {
    return new Scenario(servers, shards, tenants, theta, shardCapacity, serverCapacity, newRate, surgeFactor,
        surgeSeconds, hotspotArrivals, durationSeconds, warmupSeconds, tickMillis, windowSeconds,
        effectiveDelaySeconds, alpha, doubleHashingOffsetSize, seed);
  }

  public Scenario withHotspotArrivals(double... seconds) {
    return new Scenario(servers, shards, tenants, theta, shardCapacity, serverCapacity, rate, surgeFactor,
        surgeSeconds, seconds.clone(), durationSeconds, warmupSeconds, tickMillis, windowSeconds,
        effectiveDelaySeconds, alpha, doubleHashingOffsetSize, seed);
  }

  public Scenario withDuration(double seconds, double warmup) {
    return new Scenario(servers, shards, tenants, theta, shardCapacity, serverCapacity, rate, surgeFactor,
        surgeSeconds, hotspotArrivals, seconds, warmup, tickMillis, windowSeconds, effectiveDelaySeconds, alpha,
        doubleHashingOffsetSize, seed);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%d servers, %d shards, %,d tenants, shard capacity %,.0f w/s, server capacity"
        + " %,.0f w/s, %.0f s (%.0f s warm-up), tick %.0f ms, monitor window %.0f s, T %.0f s, α %.2f,%s seed %d",
        servers, shards, tenants, shardCapacity, serverCapacity, durationSeconds, warmupSeconds, tickMillis,
        windowSeconds, effectiveDelaySeconds, alpha, hotspotArrivals.length == 0 ? ""
            : " hotspot groups arrive at " + Arrays.toString(hotspotArrivals) + " s,", seed);
  }
}
