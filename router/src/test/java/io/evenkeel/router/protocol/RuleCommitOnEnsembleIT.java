package io.evenkeel.router.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.ZooKeeperEnsemble;
import io.evenkeel.router.rules.Rule;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rule commit protocol on a ZooKeeper ensemble of three servers in their own JVMs, as production runs it: with its
 * leader killed by SIGKILL, the master, the participants and the proposer keep their sessions on the other two, and
 * the next round commits and is applied by every participant.
 */
class RuleCommitOnEnsembleIT {
  private static final Duration EFFECTIVE_DELAY = Duration.ofSeconds(5);

  @TempDir Path dir;
  private final Deque<Closeable> closeables = new ArrayDeque<>();
  private ZooKeeperEnsemble zookeeper;

  @AfterEach
  void close() throws Exception {
    while (!closeables.isEmpty()) {
      closeables.pop().close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @Test
  void rulesStillCommitAfterTheEnsemblesLeaderIsKilled() throws Exception {
    zookeeper = ZooKeeperEnsemble.start(dir, 3);
    RuleProtocolConfig config = RuleProtocolConfig.builder("/evenkeel/ensemble", 16)
        .effectiveDelay(EFFECTIVE_DELAY).maxClockSkew(Duration.ofMillis(100)).build();
    RuleMaster master = open(new RuleMaster(client(), config, "master"));
    master.start();
    List<Participant> participants = List.of(open(new Participant(client(), config, "p1")),
        open(new Participant(client(), config, "p2")), open(new Participant(client(), config, "p3")));
    for (Participant participant : participants) {
      participant.start();
    }
    RuleProposer proposer = open(new RuleProposer(client(), config, "proposer", Duration.ZERO));
    proposer.start();
    assertThat(proposer.submit(RuleRequest.grow(4, 42)).get(30, TimeUnit.SECONDS).status())
        .isEqualTo(RoundOutcome.Status.COMMITTED);

    int leader = zookeeper.leader();
    assertThat(leader).as("the ensemble has a leader: %s", zookeeper.modes()).isNotNegative();
    zookeeper.kill(leader);
    long killed = System.nanoTime();
    RoundOutcome outcome = proposer.submit(RuleRequest.grow(8, 43)).get(60, TimeUnit.SECONDS);
    long committed = System.nanoTime();

    assertThat(outcome.status()).as("the round after the leader's loss").isEqualTo(RoundOutcome.Status.COMMITTED);
    Rule rule = outcome.rule();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Participant participant : participants) {
      while (!participant.ruleList().rules().contains(rule)) {
        assertThat(System.nanoTime()).as("%s applies %s", participant, rule).isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat(participant.ruleList().size()).isEqualTo(2);
    }
    assertThat(zookeeper.leader()).as("a new leader").isNotNegative().isNotEqualTo(leader);
    System.out.printf("ZooKeeper leader killed: the next round committed %d ms after (its effective delay %d ms)%n",
        (committed - killed) / 1_000_000, EFFECTIVE_DELAY.toMillis());
  }

  private CuratorFramework client() throws InterruptedException {
    CuratorFramework client = CuratorFrameworkFactory.builder().connectString(zookeeper.connectString())
        .sessionTimeoutMs(10_000).connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(20, 10)).build();
    client.start();
    assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).as("connected to ZooKeeper").isTrue();
    closeables.push(client);
    return client;
  }

  private <T extends Closeable> T open(T component) {
    closeables.push(component);
    return component;
  }
}
