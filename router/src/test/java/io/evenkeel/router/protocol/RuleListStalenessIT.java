package io.evenkeel.router.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * A rule-list reader knows when it is cut off from ZooKeeper, for how long, and when it has caught up again: the query
 * service flags its answers as possibly stale once that passes T/2.
 */
class RuleListStalenessIT {
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void aReaderCutOffFromZooKeeperSaysForHowLongAndClearsOnceCaughtUp() throws Exception {
    try (TestingServer zookeeper = new TestingServer(true);
        CuratorFramework client = ZooKeeperClients.start(zookeeper.getConnectString(), null,
            new ExponentialBackoffRetry(100, 5))) {
      RuleListClient rules = new RuleListClient(client, RuleProtocolConfig.builder("/evenkeel/stale", 8).build());
      rules.start();
      try {
        assertThat(rules.disconnectedMillis()).isZero();
        zookeeper.stop();
        await(() -> rules.disconnectedMillis() > 0, "flagged as cut off");
        Thread.sleep(1_500);
        assertThat(rules.disconnectedMillis()).isGreaterThanOrEqualTo(1_500);
        zookeeper.restart();
        await(() -> rules.disconnectedMillis() == 0, "caught up after ZooKeeper returned");
      } finally {
        rules.close();
      }
    }
  }
}
