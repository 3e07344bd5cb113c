package io.evenkeel.router.protocol;

import io.evenkeel.cluster.lifecycle.Lifecycle;
import io.evenkeel.router.protocol.internal.Layout;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.ProposalOutcome;
import io.evenkeel.schemas.RuleRound;
import io.evenkeel.schemas.RuleVote;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate for master of the rule commit protocol (Curator's {@link LeaderLatch}); the leader decides the rounds
 * one at a time, in proposal order:
 *
 * <ol>
 *   <li>publish: t = max(now + T, the newest rule's t), and the participants registered now as voters;
 *   <li>wait up to T/2 for the votes of the voters and of anyone who registers meanwhile;
 *   <li>all accepted: append the rule to the committed list and mark the round COMMITTED in one ZooKeeper transaction;
 *       a rejection or a missing vote: mark it ABORTED with the reason.
 * </ol>
 *
 * <p>Every write a master makes is a transaction that also checks its own latch znode, so a master whose session has
 * ended (and who may not know it yet) cannot change anything. A new master finishes the round its predecessor left
 * open at once: committed if every vote it needs is recorded and accepts, aborted otherwise. It never appends the same
 * round twice: the commit rewrites the round with a version check.
 *
 * <p>Decided rounds are pruned, oldest first, beyond the {@code retainedRounds} most recent ones.
 */
public final class RuleMaster implements Closeable {
  public static final int DEFAULT_RETAINED_ROUNDS = 1_000;

  private static final Logger LOG = LoggerFactory.getLogger(RuleMaster.class);
  private static final Object TOKEN = new Object();

  private final CuratorFramework client;
  private final RuleProtocolConfig config;
  private final Layout layout;
  private final String id;
  private final int retainedRounds;
  private final Lifecycle lifecycle;
  private final RuleListClient rules;
  private final LeaderLatch latch;
  /** Runs the rounds while this candidate leads. */
  private final ExecutorService leader;
  /** Rung by watches on the proposals, votes and participants: something a waiting round looks at changed. */
  private final BlockingQueue<Object> doorbell = new ArrayBlockingQueue<>(1);
  private final CuratorWatcher watcher = event -> ring();
  // Leader thread only: the round this master published last and its vote deadline, so that retrying it after a
  // transient ZooKeeper error keeps the vote window instead of deciding it like an inherited round.
  private String publishedRound;
  private long publishedDeadline;

  private static final class LeadershipLost extends Exception {
    private static final long serialVersionUID = 1L;

    LeadershipLost() {
      super(null, null, false, false);
    }
  }

  public RuleMaster(CuratorFramework client, RuleProtocolConfig config, String id) {
    this(client, config, id, DEFAULT_RETAINED_ROUNDS);
  }

  /** @param retainedRounds how many decided rounds to keep in ZooKeeper for audit and late readers; >= 1 */
  public RuleMaster(CuratorFramework client, RuleProtocolConfig config, String id, int retainedRounds) {
    if (retainedRounds < 1) {
      throw new IllegalArgumentException("retainedRounds must be >= 1; got: " + retainedRounds);
    }
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.id = Layout.checkId("master id", id);
    this.retainedRounds = retainedRounds;
    this.lifecycle = new Lifecycle("RuleMaster " + id);
    this.rules = new RuleListClient(client, config);
    this.latch = new LeaderLatch(client, layout.masterLatch(), id);
    this.leader = Executors.newSingleThreadExecutor(RuleListClient.daemon("evenkeel-master " + id));
  }

  /** Joins the election; rounds run on this candidate's thread whenever it leads. */
  public void start() throws Exception {
    lifecycle.start();
    layout.ensurePaths(client);
    rules.start();
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        try {
          leader.execute(RuleMaster.this::lead);
        } catch (RejectedExecutionException closed) {
          // Closed meanwhile.
        }
      }

      @Override
      public void notLeader() {
        ring();
      }
    });
    latch.start();
  }

  public String id() {
    return id;
  }

  /** Whether this candidate leads now (it may learn otherwise a moment later). */
  public boolean isLeader() {
    return latch.hasLeadership();
  }

  @Override
  public void close() throws IOException {
    if (!lifecycle.close()) {
      return;
    }
    ring();
    try {
      // A master whose start failed (or never came) has a latch that never started, and Curator's close would throw
      // for it: in a Flink task's cleanup after a failure, that exception stops the whole task manager.
      if (latch.getState() == LeaderLatch.State.STARTED) {
        latch.close();
      }
    } finally {
      leader.shutdownNow();
      rules.close();
    }
  }

  @Override
  public String toString() {
    return "RuleMaster(" + id + (isLeader() ? ", leader" : "") + ")";
  }

  private void ring() {
    doorbell.offer(TOKEN);
  }

  /** The latch does not notice its client being closed under it (a process shutting down): check both. */
  private boolean leading() {
    return lifecycle.isStarted() && client.getState() == CuratorFrameworkState.STARTED && latch.hasLeadership();
  }

  /** The leader's loop: every proposal named before {@code cursor} is decided. */
  private void lead() {
    LOG.info("master {} leads {}", id, layout.root());
    String cursor = "";
    Deque<String> decided = new ArrayDeque<>();
    while (leading()) {
      try {
        List<String> names = client.getChildren().usingWatcher(watcher).forPath(layout.proposals()).stream()
            .filter(Layout::isProposal).sorted().toList();
        String open = null;
        for (String name : names) {
          if (name.compareTo(cursor) <= 0) {
            continue;
          }
          if (!isDecided(name)) {
            open = name;
            break;
          }
          decided.addLast(name);
          cursor = name;
        }
        if (open != null) {
          runRound(open);
          decided.addLast(open);
          cursor = open;
        }
        prune(decided);
        if (open == null) {
          doorbell.poll(1, TimeUnit.SECONDS);
        }
      } catch (LeadershipLost | InterruptedException stop) {
        break;
      } catch (Exception e) {
        LOG.warn("master {}: a round failed; retrying", id, e);
        try {
          doorbell.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException stop) {
          break;
        }
      }
    }
    LOG.info("master {} no longer leads {}", id, layout.root());
  }

  private boolean isDecided(String name) throws Exception {
    String path = layout.proposal(name);
    try {
      RuleRound round = Layout.decode(Layout.ROUNDS, path, client.getData().forPath(path));
      return round.getOutcome() != ProposalOutcome.PROPOSED;
    } catch (KeeperException.NoNodeException gone) {
      return true;
    }
  }

  private void runRound(String name) throws Exception {
    String path = layout.proposal(name);
    Stat stat = new Stat();
    RuleRound round = Layout.decode(Layout.ROUNDS, path, client.getData().storingStatIn(stat).forPath(path));
    if (round.getOutcome() != ProposalOutcome.PROPOSED) {
      return;
    }
    long deadline;
    boolean recovered = round.getEffectiveTime() != null && !name.equals(publishedRound);
    if (recovered) {
      // Published by an earlier master: decide from what is recorded, now.
      deadline = System.nanoTime();
    } else if (round.getEffectiveTime() != null) {
      deadline = publishedDeadline;
    } else {
      RuleList list = rules.refresh();
      String unchanged = unchangedReason(round, list);
      if (unchanged != null) {
        decide(path, stat, round, ProposalOutcome.ABORTED, "no change: " + unchanged);
        return;
      }
      long now = config.now();
      round.setEffectiveTime(Math.max(now + config.effectiveDelayMs(), list.newestEffectiveTime()));
      round.setPublishedAt(now);
      round.setVoters(new ArrayList<>(participants()));
      stat = publish(name, stat, round);
      deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.voteTimeoutMs());
      publishedRound = name;
      publishedDeadline = deadline;
    }
    Map<String, RuleVote> votes = new TreeMap<>();
    while (true) {
      if (!leading()) {
        throw new LeadershipLost();
      }
      readNewVotes(name, votes);
      TreeSet<String> required = new TreeSet<>(round.getVoters());
      required.addAll(participants());
      for (RuleVote vote : votes.values()) {
        if (!vote.getAccepted()) {
          decide(path, stat, round, ProposalOutcome.ABORTED,
              "participant " + vote.getParticipant() + " rejected: " + vote.getReason());
          return;
        }
      }
      TreeSet<String> missing = new TreeSet<>(required);
      missing.removeAll(votes.keySet());
      if (missing.isEmpty()) {
        commit(path, stat, round, votes.keySet());
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        decide(path, stat, round, ProposalOutcome.ABORTED, recovered
            ? "the master changed mid-round before every vote was recorded; missing: " + missing
            : "no vote within T/2 = " + config.voteTimeoutMs() + " ms from " + missing);
        return;
      }
      doorbell.poll(left, TimeUnit.NANOSECONDS);
    }
  }

  private void commit(String path, Stat stat, RuleRound round, Set<String> acceptedBy) throws Exception {
    Rule rule;
    try {
      rule = RuleRequest.rule(round);
    } catch (IllegalArgumentException malformed) {
      decide(path, stat, round, ProposalOutcome.ABORTED, "malformed rule: " + malformed.getMessage());
      return;
    }
    // The round's start read the list; should another master have appended since, the create fails and we read again.
    for (int attempt = 1; ; attempt++) {
      RuleList list = attempt == 1 ? rules.current() : rules.refresh();
      try {
        list.append(rule);
      } catch (IllegalArgumentException unusable) {
        decide(path, stat, round, ProposalOutcome.ABORTED, "the rule cannot be appended: " + unusable.getMessage());
        return;
      }
      long index = list.size();
      round.setOutcome(ProposalOutcome.COMMITTED);
      round.setRuleIndex(index);
      round.setOutcomeReason("accepted by " + acceptedBy.size() + " participant(s): " + new TreeSet<>(acceptedBy));
      try {
        transaction(
            client.transactionOp().create().forPath(layout.rule(index), Layout.RULES.encode(rule.toAvro())),
            client.transactionOp().setData().withVersion(stat.getVersion()).forPath(path, Layout.ROUNDS.encode(round)));
        LOG.debug("master {}: {} committed {} as rule {}", id, path, rule, index);
        return;
      } catch (KeeperException.NodeExistsException staleIndex) {
        if (attempt >= 3) {
          throw staleIndex;
        }
      }
    }
  }

  private void decide(String path, Stat stat, RuleRound round, ProposalOutcome outcome, String reason)
      throws Exception {
    round.setOutcome(outcome);
    round.setOutcomeReason(reason);
    write(path, stat, round);
    LOG.debug("master {}: {} {}: {}", id, path, outcome, reason);
  }

  /** Publishes a round: its effective time and voters, and the znode its votes go under; returns its new stat. */
  private Stat publish(String name, Stat stat, RuleRound round) throws Exception {
    List<CuratorTransactionResult> results = transaction(
        client.transactionOp().setData().withVersion(stat.getVersion())
            .forPath(layout.proposal(name), Layout.ROUNDS.encode(round)),
        client.transactionOp().create().forPath(layout.votes(name)));
    return results.get(1).getResultStat();
  }

  /** Rewrites a round if nobody else did since we read it; returns its new stat. */
  private Stat write(String path, Stat stat, RuleRound round) throws Exception {
    List<CuratorTransactionResult> results = transaction(
        client.transactionOp().setData().withVersion(stat.getVersion()).forPath(path, Layout.ROUNDS.encode(round)));
    return results.get(results.size() - 1).getResultStat();
  }

  /** Runs {@code ops} in one transaction that first checks this master's latch znode still exists. */
  private List<CuratorTransactionResult> transaction(CuratorOp... ops) throws Exception {
    String ourPath = latch.getOurPath();
    if (ourPath == null || !leading()) {
      throw new LeadershipLost();
    }
    List<CuratorOp> all = new ArrayList<>();
    all.add(client.transactionOp().check().forPath(ourPath));
    all.addAll(List.of(ops));
    try {
      return client.transaction().forOperations(all);
    } catch (KeeperException.NoNodeException e) {
      if (client.checkExists().forPath(ourPath) == null) {
        throw new LeadershipLost();
      }
      throw e;
    }
  }

  /** Adds the votes cast since the last call to {@code votes}; a vote is written once and never changes. */
  private void readNewVotes(String name, Map<String, RuleVote> votes) throws Exception {
    for (String voter : client.getChildren().usingWatcher(watcher).forPath(layout.votes(name))) {
      if (!votes.containsKey(voter)) {
        String path = layout.vote(name, voter);
        votes.put(voter, Layout.decode(Layout.VOTES, path, client.getData().forPath(path)));
      }
    }
  }

  private List<String> participants() throws Exception {
    return client.getChildren().usingWatcher(watcher).forPath(layout.participants()).stream().sorted().toList();
  }

  private void prune(Deque<String> decided) throws Exception {
    while (decided.size() > retainedRounds) {
      String name = decided.peekFirst();
      // Votes first: a round whose proposal is gone is treated as decided and pruned by everyone.
      client.delete().quietly().deletingChildrenIfNeeded().forPath(layout.votes(name));
      client.delete().quietly().forPath(layout.proposal(name));
      decided.removeFirst();
    }
  }

  /** Why the round would change nothing, or null: also for a malformed round, which the commit then aborts. */
  private static String unchangedReason(RuleRound round, RuleList list) {
    ShardTable table;
    try {
      table = round.getTable() == null ? null : ShardTable.fromAvro(round.getTable());
    } catch (IllegalArgumentException malformed) {
      return null;
    }
    if (round.getTenants().isEmpty()) {
      return null;
    }
    for (long tenant : round.getTenants()) {
      if (!RuleRequest.alreadyAt(list, tenant, round.getOffsetSize(), round.getCoolDown(), table)) {
        return null;
      }
    }
    return "every tenant of " + round.getTenants() + " is already at "
        + RuleRequest.currentPlacement(list, round.getTenants().get(0));
  }
}
