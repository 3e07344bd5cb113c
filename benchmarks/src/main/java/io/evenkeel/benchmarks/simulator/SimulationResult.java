package io.evenkeel.benchmarks.simulator;

/**
 * What one policy achieved in one simulated run, over the measured part (after the warm-up).
 *
 * @param offered writes generated a second
 * @param throughput writes indexed a second
 * @param delayP50Millis the median write's time from generation to indexed (queueing only: no refresh, no network)
 * @param shardThroughputSpread relative standard deviation (over the mean) of the shards' writes indexed a second
 *     [ESDB fig. 12]: relative, so that policies indexing different totals compare
 * @param serverThroughputSpread the same over servers
 * @param shardSizeMaxOverMin the largest shard's rows over the smallest's at the end [ESDB fig. 13d]
 * @param fanOutTop mean shards a query of one of the ten hottest tenants visits
 * @param fanOutOthers the same for the other tenants
 * @param timeline writes indexed in each second of the whole run, warm-up included
 */
public record SimulationResult(
    String policy,
    Scenario scenario,
    double offered,
    double throughput,
    double delayP50Millis,
    double delayP99Millis,
    double shardThroughputSpread,
    double serverThroughputSpread,
    double shardSizeMaxOverMin,
    double fanOutTop,
    double fanOutOthers,
    int rules,
    double[] timeline) {

  /** Throughput over the generating rate. */
  public double served() {
    return throughput / offered;
  }
}
