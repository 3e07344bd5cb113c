package io.evenkeel.benchmarks.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The simulator's queues and policies do what the model says, at the smoke scale (seconds). */
class SimulationTest {
  private final Scenario smoke = Scenario.smoke();

  @Test
  void aShardBelowItsCapacityKeepsUpAndOneAboveItIndexesItsCapacity() {
    // One server, one shard of 100 writes/s, 50 ms ticks; 20 s, half of it measured.
    ShardQueues below = new ShardQueues(1, 1, 100, 0, 50, 400, 200);
    ShardQueues above = new ShardQueues(1, 1, 100, 0, 50, 400, 200);
    for (int tick = 0; tick < 400; tick++) {
      for (int i = 0; i < 4; i++) { // 80 writes/s
        below.arrive(0);
      }
      for (int i = 0; i < 8; i++) { // 160 writes/s
        above.arrive(0);
      }
      below.serve();
      above.serve();
    }
    below.countWaiting();
    above.countWaiting();
    assertThat(below.served()[0] / 10).isCloseTo(80, within(0.01));
    assertThat(below.delays().quantile(0.99)).as("within its tick").isEqualTo(25);
    assertThat(above.served()[0] / 10).isCloseTo(100, within(0.01));
    // The backlog grows by 60 writes a second: a write generated at second s waits about 0.6 s for each second
    // before it, so the last measured writes wait over 7 s.
    assertThat(above.delays().quantile(0.99)).isGreaterThan(7_000);
    assertThat(above.backlog()).isCloseTo(60 * 20, within(1.0));
  }

  @Test
  void aServerAtItsCapacitySharesItAmongItsShardsByDemand() {
    ShardQueues queues = new ShardQueues(2, 1, 1_000, 100, 100, 100, 0);
    for (int tick = 0; tick < 100; tick++) {
      for (int i = 0; i < 15; i++) { // 150 writes/s to shard 0, 50 to shard 1: 200 against a server's 100
        queues.arrive(0);
      }
      for (int i = 0; i < 5; i++) {
        queues.arrive(1);
      }
      queues.serve();
    }
    assertThat(queues.servedByServer()[0] / 10).isCloseTo(100, within(0.01));
    // Both shards busy: equal shares, so the lighter one keeps up and the heavier gets the rest.
    assertThat(queues.served()[1] / 10).isCloseTo(50, within(0.5));
    assertThat(queues.served()[0] / 10).isCloseTo(50, within(0.5));
  }

  @Test
  void withoutSkewEveryPolicyKeepsUp() {
    Scenario uniform = smoke.withTheta(0).withRate(0.6 * smoke.clusterCapacity());
    for (String policy : Simulation.POLICIES) {
      SimulationResult result = new Simulation(uniform).run(policy);
      assertThat(result.served()).as(policy).isGreaterThan(0.99);
      assertThat(result.delayP99Millis()).as(policy).isLessThan(100);
    }
  }

  @Test
  void underSkewDynamicHashingKeepsThroughputAndSmallTenantsOnOneShard() {
    Scenario skewed = smoke.withTheta(1.5).withRate(0.6 * smoke.clusterCapacity());
    SimulationResult hashing = new Simulation(skewed).run("hashing");
    SimulationResult doubleHashing = new Simulation(skewed).run("double-hashing");
    SimulationResult dynamic = new Simulation(skewed).run("dynamic");
    assertThat(hashing.served()).isLessThan(0.8);
    assertThat(dynamic.served()).isGreaterThan(0.99);
    assertThat(dynamic.throughput()).isGreaterThan(1.3 * hashing.throughput());
    assertThat(dynamic.serverThroughputSpread()).isLessThan(hashing.serverThroughputSpread());
    assertThat(dynamic.shardSizeMaxOverMin()).isLessThan(hashing.shardSizeMaxOverMin());
    assertThat(dynamic.rules()).isPositive();
    assertThat(dynamic.fanOutOthers()).as("small tenants stay on one shard, but a few warm ones").isLessThan(1.05);
    assertThat(dynamic.fanOutTop()).as("hot tenants widened").isGreaterThan(1);
    assertThat(doubleHashing.fanOutOthers()).as("double hashing spreads everyone").isEqualTo(8);
  }

  @Test
  void underSkewLogStoresMaxFlowKeepsUpAndMovesOnlyLargeTenants() {
    Scenario skewed = smoke.withTheta(1.5).withRate(0.6 * smoke.clusterCapacity());
    SimulationResult hashing = new Simulation(skewed).run("hashing");
    SimulationResult logstore = new Simulation(skewed).run("logstore");
    assertThat(logstore.served()).isGreaterThan(0.99);
    assertThat(logstore.serverThroughputSpread()).isLessThan(hashing.serverThroughputSpread());
    assertThat(logstore.rules()).as("routing tables computed").isPositive();
    assertThat(logstore.fanOutTop()).isGreaterThan(1);
    assertThat(logstore.fanOutOthers()).isLessThan(1.05);
  }

  @Test
  void theSameScenarioGivesTheSameResult() {
    Scenario scenario = smoke.withRate(0.8 * smoke.clusterCapacity()).withHotspotArrivals(20);
    SimulationResult first = new Simulation(scenario).run("dynamic");
    SimulationResult second = new Simulation(scenario).run("dynamic");
    assertThat(second.throughput()).isEqualTo(first.throughput());
    assertThat(second.delayP99Millis()).isEqualTo(first.delayP99Millis());
    assertThat(second.timeline()).containsExactly(first.timeline());
  }
}
