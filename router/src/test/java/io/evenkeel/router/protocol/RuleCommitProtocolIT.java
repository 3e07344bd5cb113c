package io.evenkeel.router.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.router.ShardSet;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.internal.Layout;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.RuleRound;
import io.evenkeel.schemas.RuleVote;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The rule commit protocol on a real ZooKeeper (curator-test's in-process server on a free loopback port). Every
 * process of a scenario (master, participants, proposer) has its own client, hence its own session.
 */
class RuleCommitProtocolIT {
  private static final int SHARDS = 16;
  /** T for rounds expected to abort; rounds expected to commit get a longer one: a loaded machine must not miss T/2. */
  private static final Duration T = Duration.ofSeconds(2);
  private static final Duration COMMIT_T = Duration.ofSeconds(5);
  private static final Duration SKEW = Duration.ofMillis(100);
  /** How long a condition may take on a busy machine: waits end as soon as it holds. */
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static TestingServer zookeeper;

  private final Deque<Closeable> closeables = new ArrayDeque<>();
  private String root;
  private CuratorFramework admin;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zookeeper = new TestingServer(true);
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zookeeper.close();
  }

  @BeforeEach
  void newCluster(TestInfo test) throws Exception {
    root = "/evenkeel/" + test.getTestMethod().orElseThrow().getName();
    admin = client();
  }

  @AfterEach
  void closeEverything() {
    while (!closeables.isEmpty()) {
      try {
        closeables.pop().close();
      } catch (Exception | AssertionError e) {
        // Some were killed on purpose; closing them again may fail.
      }
    }
  }

  @Test
  void roundCommitsAndRoutingChangesOnlyForRowsCreatedFromTheEffectiveTime() throws Exception {
    // Steps: a master, three participants and a proposer; route rows of tenant 42 (L = 1); propose L = 8; every
    // participant ends with the same one-rule list; rows created before t stay where they were, rows from t spread.
    RuleProtocolConfig config = config(COMMIT_T, System::currentTimeMillis);
    start(new RuleMaster(client(), config, "master"));
    List<Participant> participants = participants(config, "p1", "p2", "p3");
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));
    long tenant = 42;
    int homeShard = oneShard(tenant, 1);
    long before = System.currentTimeMillis();
    for (Participant participant : participants) {
      assertThat(participant.route(tenant, 1, before, WAIT)).isEqualTo(homeShard);
    }

    long proposedAt = System.currentTimeMillis();
    RoundOutcome outcome =
        proposer.submit(RuleRequest.grow(8, tenant).because("tenant 42 is hot")).get(10, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(RoundOutcome.Status.COMMITTED);
    Rule rule = outcome.rule();
    long t = rule.effectiveTime();
    assertThat(rule).isEqualTo(Rule.grow(t, 8, tenant));
    assertThat(t).isGreaterThanOrEqualTo(proposedAt + COMMIT_T.toMillis());
    assertThat(outcome.ruleIndex()).isZero();
    for (Participant participant : participants) {
      await(() -> participant.ruleList().size() == 1, participant + " applies the rule");
      assertThat(participant.ruleList().rules()).containsExactly(rule);
    }

    // Rows created before t may be routed only once the clock is near t (the clock-skew bound keeps rows from the
    // future pending); wait for t to pass.
    await(() -> System.currentTimeMillis() > t + SKEW.toMillis(), "the clock passes t");
    ShardSet wide = RoutingPolicy.dynamic(RuleList.of(SHARDS, List.of(rule))).shardsFor(tenant);
    Set<Integer> shardsFromT = new HashSet<>();
    for (long row = 0; row < 200; row++) {
      int beforeT = participants.get(0).route(tenant, row, t - 1, WAIT);
      int fromT = participants.get(0).route(tenant, row, t, WAIT);
      assertThat(beforeT).as("row %d created before t", row).isEqualTo(homeShard);
      assertThat(wide.contains(fromT)).as("row %d created at t lands in %s", row, wide).isTrue();
      shardsFromT.add(fromT);
      for (Participant other : participants.subList(1, 3)) {
        assertThat(other.route(tenant, row, t - 1, WAIT)).isEqualTo(beforeT);
        assertThat(other.route(tenant, row, t, WAIT)).isEqualTo(fromT);
      }
    }
    assertThat(shardsFromT).hasSize(8);
  }

  @Test
  void aMasterWhoseStartFailedOrNeverCameClosesWithoutError() throws Exception {
    // A Flink task cancelled while it opens closes what it made: an exception from that close stops the task manager.
    RuleProtocolConfig config = config(T, System::currentTimeMillis);
    new RuleMaster(client(), config, "never-started").close();
    CuratorFramework closedClient = client();
    closedClient.close();
    RuleMaster failed = new RuleMaster(closedClient, config, "failed-start");
    assertThatThrownBy(failed::start).as("a start on a closed client").isInstanceOf(Exception.class);
    failed.close();
    failed.close();
  }

  @Test
  void participantThatRoutedARowCreatedAfterTheEffectiveTimeRejectsAndNobodyAppliesTheRule() throws Exception {
    // Steps: p3's clock runs 2T ahead of the master's; it routes a row created "now" by its clock, which is after
    // any t the master can publish next; the round aborts with p3's reason and the list stays empty everywhere.
    RuleProtocolConfig config = config(T, System::currentTimeMillis);
    RuleProtocolConfig aheadConfig = config(T, () -> System.currentTimeMillis() + 2 * T.toMillis());
    start(new RuleMaster(client(), config, "master"));
    List<Participant> participants = new ArrayList<>(participants(config, "p1", "p2"));
    Participant ahead = start(new Participant(client(), aheadConfig, "p3"));
    participants.add(ahead);
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));
    long routedAt = aheadConfig.now();
    assertThat(ahead.tryRoute(7, 1, routedAt).isPending()).isFalse();

    RoundOutcome outcome = proposer.submit(RuleRequest.grow(4, 7)).get(10, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(RoundOutcome.Status.ABORTED);
    assertThat(outcome.reason()).startsWith("participant p3 rejected: participant p3 already routed a row created at "
        + routedAt + ", not before the effective time t=");
    assertThat(admin.getChildren().forPath(new Layout(root).rules())).isEmpty();
    for (Participant participant : participants) {
      assertThat(participant.ruleList().size()).isZero();
      // Nothing stays held: a row created now routes at once, with L = 1.
      assertThat(participant.route(7, 1, config.now(), WAIT)).isEqualTo(oneShard(7, 1));
    }
  }

  @Test
  void masterKilledBetweenPrepareAndCommitLeavesTheRoundCommittedOrAbortedNeverHalf() throws Exception {
    // Steps, twice: a fourth participant ("slow") registers but has not voted when the master's client is closed
    // after publishing a round and collecting the three other votes. Round 1: slow's acceptance is recorded before a
    // new master starts, which commits. Round 2: it is not, and the next master aborts. Every participant ends with
    // the list ZooKeeper holds. T is longer here so that the kill lands inside the vote window.
    Duration longT = Duration.ofSeconds(6);
    RuleProtocolConfig config = config(longT, System::currentTimeMillis);
    Layout layout = new Layout(root);
    List<Participant> participants = participants(config, "p1", "p2", "p3");
    admin.create().withMode(CreateMode.EPHEMERAL).forPath(layout.participant("slow"));
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));

    CuratorFramework firstMasterClient = client();
    start(new RuleMaster(firstMasterClient, config, "master-1"));
    var first = proposer.submit(RuleRequest.grow(8, 1));
    String round1 = awaitPublishedWithVotes(layout, 3);
    firstMasterClient.close();
    admin.create().forPath(layout.vote(round1, "slow"), Layout.VOTES.encode(new RuleVote("slow", true, null, 0L)));
    CuratorFramework secondMasterClient = client();
    start(new RuleMaster(secondMasterClient, config, "master-2"));

    RoundOutcome committed = first.get(10, TimeUnit.SECONDS);
    assertThat(committed.status()).isEqualTo(RoundOutcome.Status.COMMITTED);
    assertThat(committed.proposal()).isEqualTo(round1);

    var second = proposer.submit(RuleRequest.grow(8, 2));
    String round2 = awaitPublishedWithVotes(layout, 3);
    secondMasterClient.close();
    start(new RuleMaster(client(), config, "master-3"));

    RoundOutcome aborted = second.get(10, TimeUnit.SECONDS);
    assertThat(aborted.status()).isEqualTo(RoundOutcome.Status.ABORTED);
    assertThat(aborted.proposal()).isEqualTo(round2);
    assertThat(aborted.reason())
        .isEqualTo("the master changed mid-round before every vote was recorded; missing: [slow]");

    List<String> inZooKeeper = admin.getChildren().forPath(layout.rules());
    assertThat(inZooKeeper).containsExactly("rule-0000000000");
    for (Participant participant : participants) {
      await(() -> participant.ruleList().size() == 1, participant + " applies the committed rule");
      assertThat(participant.ruleList().rules()).containsExactly(committed.rule());
      // Round 2's hold is released: a row of tenant 2 created now routes at once, still with L = 1.
      assertThat(participant.route(2, 5, config.now(), WAIT)).isEqualTo(oneShard(2, 5));
    }
  }

  @Test
  void sessionExpiriesOfAParticipantMidRoundAndOfTheMasterBeforeItsCommitDecideEveryRoundOnce() throws Exception {
    // Steps: a master, three participants and a fake participant "slow" that votes only when the test says. Round 1:
    // p3's session is expired while the round waits for slow's vote; slow accepts; the round is decided once. Round
    // 2: the master's session is expired while it waits for slow's vote; slow accepts; the round is decided once.
    // Every participant, p3 after rejoining, ends with the list ZooKeeper holds and routes again. T/2 (the vote
    // window) is long enough here for the expiries to land inside it.
    Duration longT = Duration.ofSeconds(10);
    RuleProtocolConfig config = config(longT, System::currentTimeMillis);
    Layout layout = new Layout(root);
    CuratorFramework p3Client = client();
    List<Participant> participants = new ArrayList<>(participants(config, "p1", "p2"));
    participants.add(start(new Participant(p3Client, config, "p3")));
    admin.create().withMode(CreateMode.EPHEMERAL).forPath(layout.participant("slow"));
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));
    CuratorFramework masterClient = client();
    start(new RuleMaster(masterClient, config, "master"));

    var first = proposer.submit(RuleRequest.grow(8, 1));
    String round1 = awaitPublishedWithVotes(layout, 3);
    long p3Session = admin.checkExists().forPath(layout.participant("p3")).getEphemeralOwner();
    p3Client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    admin.create().forPath(layout.vote(round1, "slow"), Layout.VOTES.encode(new RuleVote("slow", true, null, 0L)));
    RoundOutcome decided1 = first.get(20, TimeUnit.SECONDS);
    assertThat(decided1.status()).isIn(RoundOutcome.Status.COMMITTED, RoundOutcome.Status.ABORTED);
    // The expiry was the client's: ZooKeeper drops p3's old session (and its registration) only when that times out,
    // and p3 routes again only once it has registered anew, in its new session. (The expiry reaches p3 a moment
    // after it is injected: until then p3 still routes in its old session, which does not count.)
    long rejoinBy = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!participants.get(2).isRouting() || registeredIn(layout, "p3") == p3Session) {
      assertThat(System.nanoTime()).as("p3 rejoins in a new session after its session expired")
          .isLessThan(rejoinBy);
      Thread.sleep(50);
    }

    var second = proposer.submit(RuleRequest.grow(8, 2));
    String round2 = awaitPublishedWithVotes(layout, 3);
    masterClient.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    admin.create().forPath(layout.vote(round2, "slow"), Layout.VOTES.encode(new RuleVote("slow", true, null, 0L)));
    RoundOutcome decided2 = second.get(30, TimeUnit.SECONDS);
    assertThat(decided2.status()).isIn(RoundOutcome.Status.COMMITTED, RoundOutcome.Status.ABORTED);

    List<String> inZooKeeper = admin.getChildren().forPath(layout.rules());
    long committed = Stream.of(decided1, decided2).filter(o -> o.status() == RoundOutcome.Status.COMMITTED).count();
    assertThat(inZooKeeper).as("one rule per committed round, none for an aborted one").hasSize((int) committed);
    for (Participant participant : participants) {
      await(() -> participant.ruleList().size() == committed, participant + " holds the list ZooKeeper holds");
      await(() -> !participant.tryRoute(3, 1, config.now()).isPending(), participant + " routes again");
    }
    System.out.printf("session expiries: round 1 %s, round 2 %s%n", decided1.status(), decided2.status());
  }

  @Test
  void participantThatDoesNotAnswerWithinHalfTheEffectiveDelayAbortsTheRound() throws Exception {
    // Steps: two participants run; a third ("silent") is registered and never votes, as a process stuck in a long
    // pause would; the round aborts after T/2 naming it, and the two others release what they held.
    RuleProtocolConfig config = config(T, System::currentTimeMillis);
    start(new RuleMaster(client(), config, "master"));
    List<Participant> participants = participants(config, "p1", "p2");
    admin.create().withMode(CreateMode.EPHEMERAL).forPath(new Layout(root).participant("silent"));
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));

    long submitted = System.nanoTime();
    RoundOutcome outcome = proposer.submit(RuleRequest.grow(2, 9)).get(10, TimeUnit.SECONDS);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - submitted);

    assertThat(outcome.status()).isEqualTo(RoundOutcome.Status.ABORTED);
    assertThat(outcome.reason()).isEqualTo("no vote within T/2 = " + T.toMillis() / 2 + " ms from [silent]");
    assertThat(tookMs).isGreaterThanOrEqualTo(T.toMillis() / 2);
    assertThat(admin.getChildren().forPath(new Layout(root).rules())).isEmpty();
    for (Participant participant : participants) {
      await(() -> !participant.tryRoute(9, 1, config.now()).isPending(), participant + " releases held rows");
      assertThat(participant.ruleList().size()).isZero();
    }
  }

  @Test
  void thousandSequentialProposalsLeaveTheSameListEverywhereAndEveryLFollowsOnlyCommittedRules() throws Exception {
    // Steps: 1,000 proposals over 100 tenants, one after the other, random L in [1, 16], a third of them cool-downs;
    // before every tenth, p3 (clock 2T ahead) routes a row that makes it reject the round. The test clock moves 3T
    // per round. After each decision every participant must hold exactly the committed rules, and rows created at
    // the round's t must route by them; at the end every tenant's L is what the committed rules alone give.
    AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    long step = 3 * COMMIT_T.toMillis();
    RuleProtocolConfig config = config(COMMIT_T, clock::get);
    RuleProtocolConfig aheadConfig = config(COMMIT_T, () -> clock.get() + 2 * COMMIT_T.toMillis());
    start(new RuleMaster(client(), config, "master", 50));
    List<Participant> participants = new ArrayList<>(participants(config, "p1", "p2"));
    Participant ahead = start(new Participant(client(), aheadConfig, "p3"));
    participants.add(ahead);
    RuleProposer proposer = start(new RuleProposer(client(), config, "proposer", Duration.ZERO));

    Random random = new Random(4);
    RuleList committed = RuleList.empty(SHARDS);
    Map<Long, Integer> modelL = new HashMap<>();
    int commits = 0;
    int aborts = 0;
    int skips = 0;
    for (int i = 0; i < 1_000; i++) {
      long tenant = random.nextInt(100);
      int offsetSize = 1 << random.nextInt(5);
      boolean coolDown = random.nextInt(3) == 0;
      boolean forceReject = i % 10 == 0;
      if (forceReject) {
        // Bounded wait: p3 may not have seen the previous round's decision yet, and holds rows until it does.
        ahead.route(tenant, i, aheadConfig.now(), WAIT);
      }
      RuleRequest request = coolDown ? RuleRequest.coolDown(offsetSize, tenant) : RuleRequest.grow(offsetSize, tenant);
      int current = modelL.getOrDefault(tenant, 1);
      boolean changes = coolDown ? current != offsetSize : current < offsetSize;

      RoundOutcome outcome = proposer.submit(request).get(10, TimeUnit.SECONDS);

      if (!changes) {
        assertThat(outcome.status()).as("round %d: %s", i, outcome).isEqualTo(RoundOutcome.Status.SKIPPED);
        skips++;
      } else if (forceReject) {
        assertThat(outcome.status()).as("round %d: %s", i, outcome).isEqualTo(RoundOutcome.Status.ABORTED);
        assertThat(outcome.reason()).startsWith("participant p3 rejected");
        aborts++;
      } else {
        assertThat(outcome.status()).as("round %d: %s", i, outcome).isEqualTo(RoundOutcome.Status.COMMITTED);
        assertThat(outcome.ruleIndex()).isEqualTo(committed.size());
        committed = committed.append(outcome.rule());
        modelL.put(tenant, offsetSize);
        commits++;
      }
      int size = committed.size();
      for (Participant participant : participants) {
        await(() -> participant.ruleList().size() == size, participant + " applies " + size + " rules");
      }
      await(() -> proposer.ruleList().size() == size, "the proposer sees " + size + " rules");
      clock.addAndGet(step);
      if (outcome.isCommitted()) {
        long t = outcome.rule().effectiveTime();
        RoutingPolicy expected = RoutingPolicy.dynamic(committed);
        for (Participant participant : participants.subList(0, 2)) {
          assertThat(participant.route(tenant, i, t, WAIT)).isEqualTo(expected.shardFor(tenant, i, t));
          assertThat(participant.route(tenant, i, t - 1, WAIT)).isEqualTo(expected.shardFor(tenant, i, t - 1));
        }
      }
    }

    assertThat(commits + aborts + skips).isEqualTo(1_000);
    assertThat(commits).isGreaterThan(200);
    assertThat(aborts).isGreaterThan(10);
    for (Participant participant : participants) {
      assertThat(participant.ruleList().rules()).isEqualTo(committed.rules());
      for (long tenant = 0; tenant < 100; tenant++) {
        assertThat(participant.ruleList().offsetSizeFor(tenant, Long.MAX_VALUE))
            .as("L of tenant %d on %s", tenant, participant)
            .isEqualTo(modelL.getOrDefault(tenant, 1));
      }
    }
    List<String> rounds = admin.getChildren().forPath(new Layout(root).proposals());
    assertThat(rounds.size()).as("decided rounds pruned to the 50 most recent").isLessThanOrEqualTo(51);
    assertThat(admin.getChildren().forPath(new Layout(root).votes()).size()).isLessThanOrEqualTo(51);
  }

  private RuleProtocolConfig config(Duration effectiveDelay, LongSupplier clock) {
    return RuleProtocolConfig.builder(root, SHARDS)
        .effectiveDelay(effectiveDelay)
        .maxClockSkew(SKEW)
        .clock(clock)
        .build();
  }

  /** Where a row lives while its tenant has L = 1. */
  private static int oneShard(long tenant, long rowId) {
    return RoutingPolicy.hashing(SHARDS).shardFor(tenant, rowId, 0);
  }

  private CuratorFramework client() throws InterruptedException {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(zookeeper.getConnectString())
        .sessionTimeoutMs(10_000)
        .connectionTimeoutMs(5_000)
        .retryPolicy(new ExponentialBackoffRetry(20, 3))
        .build();
    client.start();
    assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).as("connected to ZooKeeper").isTrue();
    closeables.push(client);
    return client;
  }

  private List<Participant> participants(RuleProtocolConfig config, String... ids) throws Exception {
    List<Participant> participants = new ArrayList<>();
    for (String id : ids) {
      participants.add(start(new Participant(client(), config, id)));
    }
    return participants;
  }

  private <T extends Closeable> T start(T component) throws Exception {
    closeables.push(component);
    if (component instanceof RuleMaster master) {
      master.start();
    } else if (component instanceof Participant participant) {
      participant.start();
    } else if (component instanceof RuleProposer proposer) {
      proposer.start();
    } else {
      throw new IllegalArgumentException("not a protocol component: " + component);
    }
    return component;
  }

  /** The session of {@code participant}'s registration, 0 while it has none. */
  private long registeredIn(Layout layout, String participant) throws Exception {
    org.apache.zookeeper.data.Stat stat = admin.checkExists().forPath(layout.participant(participant));
    return stat == null ? 0 : stat.getEphemeralOwner();
  }

  /** The newest round once the master has published it and {@code votes} participants have voted; its name. */
  private String awaitPublishedWithVotes(Layout layout, int votes) throws Exception {
    String[] found = new String[1];
    await(() -> {
      try {
        List<String> names = admin.getChildren().forPath(layout.proposals()).stream().sorted().toList();
        if (names.isEmpty()) {
          return false;
        }
        String name = names.get(names.size() - 1);
        RuleRound round = Layout.decode(Layout.ROUNDS, name, admin.getData().forPath(layout.proposal(name)));
        found[0] = name;
        return round.getEffectiveTime() != null && admin.getChildren().forPath(layout.votes(name)).size() == votes;
      } catch (Exception e) {
        return false;
      }
    }, "a published round with " + votes + " votes");
    return found[0];
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT.toMillis() + " ms: " + what);
      }
      Thread.sleep(2);
    }
  }
}
