package io.evenkeel.router.protocol;

import io.evenkeel.cluster.lifecycle.Lifecycle;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.internal.Layout;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.ProposalOutcome;
import io.evenkeel.schemas.RuleRound;
import io.evenkeel.schemas.RuleVote;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process that routes writes, as one participant of the rule commit protocol. It registers itself (an ephemeral
 * znode), routes with the committed rule list ({@link RoutingPolicy#dynamic}), and votes on every round the master
 * publishes:
 *
 * <ul>
 *   <li>it accepts a round with effective time t only if every row it has routed so far was created before t, and
 *       from then until the decision it holds back rows created at or after t: {@link #tryRoute} answers "pending"
 *       for them, {@link #route} waits (bounded);
 *   <li>it rejects otherwise, with the reason;
 *   <li>it releases held rows when the round is aborted, or committed and the rule is in its local list.
 * </ul>
 *
 * <p>Cut off from ZooKeeper (connection suspended, session expired) it routes nothing: a round could then be decided
 * without it. It resumes once it is registered again (a new session registers anew), has re-read the rule list and
 * has voted on every round still open. It also leaves pending any row created more than the clock-skew bound ahead
 * of its own clock, so that a round published while it was away cannot take effect before a row it already routed.
 *
 * <p>NOTE: thread-safe; routing calls from many threads serialize on one lock, held for a rule-list lookup.
 */
public final class Participant implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Participant.class);
  private static final long REJOIN_RETRY_MS = 500;

  private final CuratorFramework client;
  private final RuleProtocolConfig config;
  private final Layout layout;
  private final String id;
  private final Lifecycle lifecycle;
  private final RuleListClient rules;
  private final CuratorCache proposals;
  /** Votes, decisions and re-registration run here, one at a time and off Curator's event thread. */
  private final ScheduledExecutorService events;
  private final ConnectionStateListener connectionListener = (c, state) -> stateChanged(state);

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled whenever a held or stopped write may have become routable. */
  private final Condition changed = lock.newCondition();
  // Guarded by lock.
  private RuleList list;
  private RoutingPolicy policy;
  private long maxRouted = Long.MIN_VALUE;
  /** Rounds this participant accepted and has not seen decided and applied, by proposal name. */
  private final Map<String, Hold> holds = new HashMap<>();
  /** The smallest effective time among {@link #holds}: rows created at or after it are held back. */
  private long holdFrom = Long.MAX_VALUE;
  private String holdingRound;
  /** Why nothing is routed now, or null while routing. */
  private String stoppedReason = "not started";
  /** Set for good when the rule list cannot be applied further: routing on would misplace rows. */
  private String stalledReason;

  // Events thread only.
  private final Set<String> voted = new HashSet<>();

  private static final class Hold {
    final long effectiveTime;
    /** The committed rule's index once the round is committed; -1 before. */
    long ruleIndex = -1;

    Hold(long effectiveTime) {
      this.effectiveTime = effectiveTime;
    }
  }

  /**
   * @param id this process's participant name, unique in the cluster (for example the ingest job's subtask)
   */
  public Participant(CuratorFramework client, RuleProtocolConfig config, String id) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.id = Layout.checkId("participant id", id);
    this.lifecycle = new Lifecycle("Participant " + id);
    this.rules = new RuleListClient(client, config);
    this.proposals = CuratorCache.build(client, layout.proposals());
    this.events = Executors.newSingleThreadScheduledExecutor(RuleListClient.daemon("evenkeel-participant " + id));
    this.list = RuleList.empty(config.numShards());
    this.policy = RoutingPolicy.dynamic(list);
  }

  /**
   * Registers, reads the rule list, votes on the open rounds, then routes. Waits up to the session timeout when the
   * id is still registered by an earlier session (a restarted process whose old session has not expired yet).
   */
  public void start() throws Exception {
    lifecycle.start();
    layout.ensurePaths(client);
    client.getConnectionStateListenable().addListener(connectionListener);
    rules.addListener(new RuleListListener() {
      @Override
      public void ruleListChanged(RuleList grown) {
        applied(grown);
      }

      @Override
      public void ruleListStalled(String reason) {
        lock.lock();
        try {
          stalledReason = reason;
        } finally {
          lock.unlock();
        }
        stop(reason);
      }
    });
    rules.start();
    proposals.listenable().addListener(CuratorCacheListener.builder().forAll(this::onProposalEvent).build());
    proposals.start();
    try {
      events.submit(() -> {
        rejoin();
        return null;
      }).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  public String id() {
    return id;
  }

  /** Routes a write now, or answers pending with the reason; never blocks on ZooKeeper. */
  public Routing tryRoute(long tenant, long rowId, long createdTime) {
    lock.lock();
    try {
      return routeLocked(tenant, rowId, createdTime);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Routes a write, waiting up to {@code maxWait} while it is pending.
   *
   * @return the shard
   * @throws RoutingPendingException still pending after {@code maxWait}; the write was not routed
   */
  public int route(long tenant, long rowId, long createdTime, Duration maxWait)
      throws RoutingPendingException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + maxWait.toNanos();
    lock.lock();
    try {
      while (true) {
        Routing routing = routeLocked(tenant, rowId, createdTime);
        if (!routing.isPending()) {
          return routing.shard();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new RoutingPendingException(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
              routing.pendingReason());
        }
        // Decisions signal; a row from the future becomes routable only as the clock moves, hence the short slices.
        changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
      }
    } finally {
      lock.unlock();
    }
  }

  /** The rule list this participant routes with now. */
  public RuleList ruleList() {
    lock.lock();
    try {
      return list;
    } finally {
      lock.unlock();
    }
  }

  /** The latest creation time of a row routed so far ({@code Long.MIN_VALUE} before the first). */
  public long maxRoutedCreatedTime() {
    lock.lock();
    try {
      return maxRouted;
    } finally {
      lock.unlock();
    }
  }

  /** False while cut off from ZooKeeper, re-registering, or closed. */
  public boolean isRouting() {
    lock.lock();
    try {
      return stoppedReason == null;
    } finally {
      lock.unlock();
    }
  }

  /** Stops routing and deregisters, so the master does not wait for this participant's votes. */
  @Override
  public void close() {
    if (!lifecycle.close()) {
      return;
    }
    stop("participant " + id + " is closed");
    client.getConnectionStateListenable().removeListener(connectionListener);
    events.shutdownNow();
    proposals.close();
    rules.close();
    try {
      client.delete().quietly().forPath(layout.participant(id));
    } catch (Exception e) {
      // The session's end removes the ephemeral registration anyway.
      LOG.debug("participant {}: deregistering failed", id, e);
    }
  }

  @Override
  public String toString() {
    return "Participant(" + id + ")";
  }

  private Routing routeLocked(long tenant, long rowId, long createdTime) {
    if (stoppedReason != null) {
      return Routing.pending(stoppedReason);
    }
    if (createdTime >= holdFrom) {
      return Routing.pending("held: round " + holdingRound + " takes effect for rows created at or after "
          + holdFrom + " and is not decided yet");
    }
    long now = config.now();
    if (createdTime > now + config.maxClockSkewMs()) {
      return Routing.pending("row created at " + createdTime + " is " + (createdTime - now) + " ms ahead of this "
          + "participant's clock; the clock-skew bound maxClockSkew is " + config.maxClockSkewMs() + " ms");
    }
    if (createdTime > maxRouted) {
      maxRouted = createdTime;
    }
    return Routing.routed(policy.shardFor(tenant, rowId, createdTime));
  }

  private void stateChanged(ConnectionState state) {
    switch (state) {
      case SUSPENDED -> stop("disconnected from ZooKeeper: a round may be decided without this participant");
      case LOST -> stop("ZooKeeper session expired: re-registering and re-reading the rule list");
      case RECONNECTED -> onEvents(this::rejoinOrRetry);
      default -> {
        // CONNECTED comes once, before start() registers; READ_ONLY is not enabled.
      }
    }
  }

  private void stop(String reason) {
    lock.lock();
    try {
      stoppedReason = reason;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void rejoinOrRetry() {
    try {
      rejoin();
    } catch (Exception e) {
      LOG.warn("participant {}: re-registering failed, retrying in {} ms", id, REJOIN_RETRY_MS, e);
      if (lifecycle.isStarted() && client.getZookeeperClient().isConnected()) {
        try {
          events.schedule(this::rejoinOrRetry, REJOIN_RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
          // Closed meanwhile.
        }
      }
    }
  }

  /**
   * Register, re-read the list, vote on every open round, then route. In that order: a round decided after the
   * registration counts this participant's vote, and one published before it is among the rounds read here.
   */
  private void rejoin() throws Exception {
    register();
    rules.refresh();
    List<String> names = client.getChildren().forPath(layout.proposals());
    for (String name : names.stream().filter(Layout::isProposal).sorted().toList()) {
      try {
        String path = layout.proposal(name);
        consider(name, Layout.decode(Layout.ROUNDS, path, client.getData().forPath(path)));
      } catch (KeeperException.NoNodeException pruned) {
        // Decided long ago and pruned.
      }
    }
    lock.lock();
    try {
      // A held round that is gone was decided and pruned; the list read above holds its rule if it was committed.
      List<String> gone = new ArrayList<>(holds.keySet());
      gone.removeAll(names);
      gone.forEach(holds::remove);
      recomputeHold();
      stoppedReason = stalledReason;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void register() throws Exception {
    String path = layout.participant(id);
    long giveUp = System.nanoTime()
        + TimeUnit.MILLISECONDS.toNanos(client.getZookeeperClient().getZooKeeper().getSessionTimeout() + 1_000L);
    while (true) {
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      try {
        client.create().withMode(CreateMode.EPHEMERAL).forPath(path);
        return;
      } catch (KeeperException.NodeExistsException e) {
        Stat stat = client.checkExists().forPath(path);
        if (stat == null || stat.getEphemeralOwner() == session) {
          if (stat != null) {
            return;
          }
          continue;
        }
        if (System.nanoTime() > giveUp) {
          throw new IllegalStateException("participant id '" + id + "' is registered at " + path
              + " by another ZooKeeper session (0x" + Long.toHexString(stat.getEphemeralOwner()) + ") that did not "
              + "expire within the session timeout: every process that routes writes needs its own id");
        }
        Thread.sleep(100);
      }
    }
  }

  private void onProposalEvent(CuratorCacheListener.Type type, ChildData before, ChildData after) {
    ChildData node = after != null ? after : before;
    String name = layout.proposalAt(node.getPath());
    if (name == null) {
      return;
    }
    switch (type) {
      case NODE_CREATED, NODE_CHANGED -> onEvents(() -> consider(name,
          Layout.decode(Layout.ROUNDS, node.getPath(), node.getData())));
      case NODE_DELETED -> onEvents(() -> pruned(name));
    }
  }

  /** Votes on a newly published round, or applies a decision. Events thread. */
  private void consider(String name, RuleRound round) {
    if (round.getOutcome() != ProposalOutcome.PROPOSED) {
      decided(name, round);
      return;
    }
    Long effectiveTime = round.getEffectiveTime();
    if (effectiveTime == null || voted.contains(name)) {
      return;
    }
    long t = effectiveTime;
    RuleVote vote;
    lock.lock();
    try {
      if (t <= maxRouted) {
        vote = new RuleVote(id, false, "participant " + id + " already routed a row created at " + maxRouted
            + ", not before the effective time t=" + t, maxRouted);
      } else {
        // Hold first, vote second: once the master can see the acceptance, no row at or after t slips through.
        holds.put(name, new Hold(t));
        recomputeHold();
        vote = new RuleVote(id, true, null, maxRouted);
      }
    } finally {
      lock.unlock();
    }
    String path = layout.vote(name, id);
    LOG.debug("participant {}: {} {} (t={})", id, vote.getAccepted() ? "accepts" : "rejects", name, t);
    try {
      client.create().forPath(path, Layout.VOTES.encode(vote));
    } catch (KeeperException.NodeExistsException votedBefore) {
      // Voted before a session expiry or a restart under the same id: that vote stands.
      try {
        RuleVote earlier = Layout.decode(Layout.VOTES, path, client.getData().forPath(path));
        lock.lock();
        try {
          if (earlier.getAccepted()) {
            holds.putIfAbsent(name, new Hold(t));
          } else {
            holds.remove(name);
          }
          recomputeHold();
        } finally {
          lock.unlock();
        }
      } catch (KeeperException.NoNodeException pruned) {
        pruned(name);
      } catch (Exception e) {
        LOG.warn("participant {}: reading its earlier vote on {} failed; holding on", id, name, e);
        return;
      }
    } catch (KeeperException.NoNodeException pruned) {
      pruned(name);
    } catch (Exception e) {
      // Unsent: the master times the round out; the hold stays until the abort is seen.
      LOG.warn("participant {}: voting on {} failed", id, name, e);
      return;
    }
    voted.add(name);
  }

  private void decided(String name, RuleRound round) {
    lock.lock();
    try {
      Hold hold = holds.get(name);
      LOG.debug("participant {}: {} {}{}", id, name, round.getOutcome(), hold == null ? "" : ", held");
      if (hold == null) {
        return;
      }
      if (round.getOutcome() == ProposalOutcome.COMMITTED) {
        hold.ruleIndex = round.getRuleIndex();
        releaseApplied();
      } else {
        holds.remove(name);
        recomputeHold();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A round deleted before this participant saw its decision: read the list first, it holds the rule if any. */
  private void pruned(String name) {
    try {
      rules.refresh();
    } catch (Exception e) {
      LOG.warn("participant {}: re-reading the rule list after {} was pruned failed; holding on", id, name, e);
      return;
    }
    lock.lock();
    try {
      if (holds.remove(name) != null) {
        recomputeHold();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The rule list grew (rule-list thread): route with it, then release the rounds whose rule it now holds. */
  private void applied(RuleList grown) {
    lock.lock();
    try {
      list = grown;
      policy = RoutingPolicy.dynamic(grown);
      releaseApplied();
    } finally {
      lock.unlock();
    }
  }

  private void releaseApplied() {
    holds.values().removeIf(hold -> hold.ruleIndex >= 0 && hold.ruleIndex < list.size());
    recomputeHold();
  }

  private void recomputeHold() {
    holdFrom = Long.MAX_VALUE;
    holdingRound = null;
    holds.forEach((name, hold) -> {
      if (hold.effectiveTime < holdFrom) {
        holdFrom = hold.effectiveTime;
        holdingRound = name;
      }
    });
    changed.signalAll();
  }

  private void onEvents(Runnable task) {
    try {
      events.execute(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.error("participant {}: handling a protocol event failed", id, e);
        }
      });
    } catch (RejectedExecutionException closed) {
      // Closed: events no longer matter.
    }
  }
}
