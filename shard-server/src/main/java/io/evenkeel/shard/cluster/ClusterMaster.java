package io.evenkeel.shard.cluster;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.schemas.CopyMove;
import io.evenkeel.schemas.ShardCopies;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's master, elected among the shard servers (a Curator {@link LeaderLatch}): when a primary's server is
 * gone (its ephemeral znode expired, or a {@link FailureDetector} found its port closed) it promotes the most
 * up-to-date live in-sync replica (the one whose translog holds the highest sequence number; every in-sync replica
 * holds every acknowledged write, the most up-to-date also the most of those not yet acknowledged) in a new term; it
 * keeps {@code replicas} live replicas of every shard, each on a server that holds no other copy of it, the least
 * loaded first. A server that comes back keeps its place as a replica and catches up by copying files. When the
 * cluster is at rest it evens the servers' loads one step at a time ({@link Rebalancer}): a server added to a running
 * cluster receives copies, and primaries, until it carries its share.
 *
 * <p>Every change is a compare-and-set on the shard's znode that re-checks its reason, so a master acting on a stale
 * look changes nothing.
 */
final class ClusterMaster implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMaster.class);
  /** A move not ended by then is abandoned (its target could not catch up: a full disk, an unreachable primary). */
  private static final long MOVE_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(30);
  /** The least time between two rebalancing steps: the state client's look shows a step within it. */
  private static final long STEP_SPACING_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final ClusterStateClient cluster;
  private final SequenceNumbers sequenceNumbers;
  private final int replicasPerShard;
  private final boolean rebalance;
  /** When the last rebalancing step started (nanoTime). */
  private volatile long lastStepStarted = System.nanoTime() - STEP_SPACING_NANOS;
  private final LeaderLatch latch;
  private final String self;
  private final FailureDetector failureDetector;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "cluster-master");
    thread.setDaemon(true);
    return thread;
  });

  /** Where a copy's progress is read: the highest sequence number in its translog. */
  interface SequenceNumbers {
    long of(String server, int shard) throws IOException;
  }

  /**
   * @param rebalance whether the master evens the servers' loads when the cluster is at rest (else copies stay where
   *     they were laid out, and replicas where they were assigned)
   */
  ClusterMaster(CuratorFramework client, ClusterStateClient cluster, String self, SequenceNumbers sequenceNumbers,
      int replicasPerShard, boolean rebalance) {
    this.cluster = cluster;
    this.sequenceNumbers = sequenceNumbers;
    this.replicasPerShard = replicasPerShard;
    this.rebalance = rebalance;
    this.latch = new LeaderLatch(client, cluster.layout().master(), self);
    this.self = self;
    this.failureDetector = new FailureDetector(cluster, this::watched);
  }

  /** Whom this server checks for a gone process: the master every other server, the others the master. */
  private Collection<String> watched() {
    if (latch.hasLeadership()) {
      return cluster.current().servers().keySet().stream().filter(server -> !server.equals(self)).toList();
    }
    try {
      Participant leader = latch.getLeader();
      return leader.isLeader() && !leader.getId().equals(self) ? List.of(leader.getId()) : List.of();
    } catch (Exception e) {
      return List.of(); // no ZooKeeper now: nothing to remove anyone from either
    }
  }

  void start() throws Exception {
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        actNow(); // a master elected because the last one is gone has its shards to promote
      }

      @Override
      public void notLeader() {}
    });
    latch.start();
    cluster.addListener(state -> actNow());
    executor.scheduleWithFixedDelay(this::act, 1, 1, TimeUnit.SECONDS);
    failureDetector.start();
  }

  private void actNow() {
    try {
      executor.execute(this::act);
    } catch (RejectedExecutionException closed) {
      // the master closed; the state client and the latch live on
    }
  }

  private void act() {
    if (!latch.hasLeadership()) {
      return;
    }
    ClusterState state = cluster.current();
    for (ShardCopies copies : state.shards().values()) {
      try {
        if (!state.live(copies.getPrimary())) {
          promote(copies.getShard());
        } else if (copies.getMove() != null) {
          advanceMove(copies.getShard());
        } else {
          assignReplicas(copies.getShard());
        }
      } catch (Exception e) {
        LOG.warn("shard {}: master's change failed: {}", copies.getShard(), e.toString());
      }
    }
    // The look at the state may not show a step started a moment ago yet: one step at a time.
    if (rebalance && System.nanoTime() - lastStepStarted > STEP_SPACING_NANOS) {
      Rebalancer.next(cluster.current(), replicasPerShard).ifPresent(step -> {
        try {
          startStep(step);
        } catch (Exception e) {
          LOG.warn("shard {}: starting {} failed: {}", step.shard(), step, e.toString());
        }
      });
    }
  }

  /** Starts a step of the rebalancing, if the shard is still as it was planned on. */
  private void startStep(Rebalancer.Step step) throws Exception {
    if (step instanceof Rebalancer.Handover && !caughtUp(step.shard(), step.from(), step.to())) {
      return;
    }
    Optional<ShardCopies> started = cluster.update(step.shard(), copies -> {
      if (copies.getMove() != null || !Rebalancer.atRest(cluster.current(), replicasPerShard)) {
        return null;
      }
      if (step instanceof Rebalancer.Handover) {
        if (!step.from().equals(copies.getPrimary()) || !copies.getInSync().contains(step.to())) {
          return null;
        }
        LOG.info("shard {}: primary handed over from {} to its in-sync replica {} in term {} (rebalancing)",
            step.shard(), step.from(), step.to(), copies.getTerm() + 1);
        return handover(copies, step.to());
      }
      if (copies.getReplicas().contains(step.to()) || step.to().equals(copies.getPrimary())
          || !(step.from().equals(copies.getPrimary()) || copies.getReplicas().contains(step.from()))) {
        return null;
      }
      List<String> replicas = new ArrayList<>(copies.getReplicas());
      replicas.add(step.to());
      LOG.info("shard {}: moving the {} on {} to {} (rebalancing)", step.shard(),
          step.from().equals(copies.getPrimary()) ? "primary" : "replica", step.from(), step.to());
      return ShardCopies.newBuilder(copies).setReplicas(replicas).setMove(CopyMove.newBuilder().setFrom(step.from())
          .setTo(step.to()).setStarted(System.currentTimeMillis()).build()).build();
    });
    if (started.map(copies -> copies.getMove() != null || step.to().equals(copies.getPrimary())).orElse(false)) {
      lastStepStarted = System.nanoTime();
    }
  }

  /**
   * A move under way, from {@code from} to {@code to}:
   * <ol>
   *   <li>the target copies the segments as a replica until it is in sync;
   *   <li>a primary then hands over to it in the next term, staying a replica itself (the other replicas rejoin the
   *       new primary, and until one of them is in sync the old primary's copy is the second complete one);
   *   <li>once the target is primary (handed over, or promoted after a death) or an in-sync replica, the source's
   *       copy goes, as soon as the other replicas the shard keeps are in sync.
   * </ol>
   * A move whose target died, or that has not ended within {@link #MOVE_TIMEOUT_MS}, is abandoned; one whose source
   * died ends, the master then keeping the replicas as for any dead server.
   */
  private void advanceMove(int shard) throws Exception {
    CopyMove planned = cluster.current().copies(shard).map(ShardCopies::getMove).orElse(null);
    boolean handingOver = planned != null && cluster.current().copies(shard)
        .map(c -> planned.getFrom().equals(c.getPrimary()) && c.getInSync().contains(planned.getTo())).orElse(false);
    if (handingOver && !caughtUp(shard, planned.getFrom(), planned.getTo())) {
      return;
    }
    cluster.update(shard, copies -> {
      CopyMove move = copies.getMove();
      if (move == null) {
        return null;
      }
      ClusterState state = cluster.current();
      String from = move.getFrom();
      String to = move.getTo();
      long tookMs = System.currentTimeMillis() - move.getStarted();
      boolean arrived = to.equals(copies.getPrimary()) || copies.getInSync().contains(to);
      if (!state.live(from)) {
        return ShardCopies.newBuilder(copies).setMove(null).build();
      }
      if (!state.live(to) || !arrived && tookMs > MOVE_TIMEOUT_MS) {
        LOG.warn("shard {}: moving its copy on {} to {} abandoned after {} ms: {}", shard, from, to, tookMs,
            state.live(to) ? "not in sync yet" : to + " is gone");
        return to.equals(copies.getPrimary()) ? ShardCopies.newBuilder(copies).setMove(null).build()
            : without(copies, to);
      }
      if (!arrived) {
        return null; // still copying
      }
      if (from.equals(copies.getPrimary())) {
        if (!handingOver) {
          return null; // the look before the compare-and-set is stale
        }
        LOG.info("shard {}: primary handed over from {} to {} in term {}, {} ms into the move", shard, from, to,
            copies.getTerm() + 1, tookMs);
        return handover(copies, to);
      }
      List<String> others = copies.getReplicas().stream().filter(replica -> !replica.equals(from) && state.live(replica))
          .toList();
      long othersInSync = others.stream().filter(copies.getInSync()::contains).count();
      if (othersInSync < Math.min(replicasPerShard, others.size())) {
        return null; // the source's copy stays a complete one until the others have caught up
      }
      LOG.info("shard {}: copy moved from {} to {} ({} ms)", shard, from, to, tookMs);
      return ShardCopies.newBuilder(without(copies, from)).setMove(null).build();
    });
  }

  /**
   * Whether the replica on {@code to} holds every sequence number the primary on {@code from} has assigned, asked
   * primary first: an in-sync replica can lag only by writes in flight, but one that restarted and emptied its
   * translog may still be listed in sync until a write to it fails. A handover waits for the next look otherwise.
   */
  private boolean caughtUp(int shard, String from, String to) {
    try {
      long primary = sequenceNumbers.of(from, shard);
      long replica = sequenceNumbers.of(to, shard);
      if (replica < primary) {
        LOG.info("shard {}: handover to {} waits: its translog holds up to {}, the primary's {}", shard, to,
            replica, primary);
      }
      return replica >= primary;
    } catch (IOException e) {
      LOG.warn("shard {}: handover to {} waits: {}", shard, to, e.getMessage());
      return false;
    }
  }

  /** {@code copies} without {@code server}'s replica. */
  private static ShardCopies without(ShardCopies copies, String server) {
    List<String> replicas = new ArrayList<>(copies.getReplicas());
    List<String> inSync = new ArrayList<>(copies.getInSync());
    replicas.remove(server);
    inSync.remove(server);
    return ShardCopies.newBuilder(copies).setReplicas(replicas).setInSync(inSync).build();
  }

  /**
   * {@code copies} with its in-sync replica {@code to} as primary in the next term and the old primary its replica.
   * The old primary can no longer acknowledge a write once this is stored (it cannot drop {@code to} from the
   * in-sync set of its term), and {@code to} holds every write it acknowledged before: a planned handover is a
   * promotion whose old primary is still alive. No replica is in sync with the new primary until it rejoins it,
   * copying the files that differ.
   */
  private static ShardCopies handover(ShardCopies copies, String to) {
    List<String> replicas = new ArrayList<>(copies.getReplicas());
    replicas.remove(to);
    replicas.add(copies.getPrimary());
    return ShardCopies.newBuilder(copies).setPrimary(to).setTerm(copies.getTerm() + 1).setReplicas(replicas)
        .setInSync(List.of()).build();
  }

  /** The primary's server is gone: the most up-to-date live in-sync replica takes over in the next term. */
  private void promote(int shard) throws Exception {
    // Asked before the compare-and-set, which may run more than once; a replica that does not answer comes last.
    Map<String, Long> progress = new HashMap<>();
    ClusterState before = cluster.current();
    List<String> candidates = before.copies(shard).map(ShardCopies::getInSync).orElse(List.of()).stream()
        .filter(before::live).toList();
    if (candidates.size() > 1) {
      for (String candidate : candidates) {
        try {
          progress.put(candidate, sequenceNumbers.of(candidate, shard));
        } catch (IOException e) {
          LOG.warn("shard {}: {}", shard, e.getMessage());
        }
      }
    }
    cluster.update(shard, copies -> {
      ClusterState state = cluster.current();
      if (state.live(copies.getPrimary())) {
        return null;
      }
      String chosen = copies.getInSync().stream().filter(state::live)
          .max(Comparator.comparingLong(replica -> progress.getOrDefault(replica, Long.MIN_VALUE))).orElse(null);
      if (chosen == null) {
        LOG.warn("shard {}: primary {} is gone and no live replica is in sync ({}): the shard takes no writes until "
            + "one returns", shard, copies.getPrimary(), copies.getInSync());
        return null;
      }
      List<String> replicas = new ArrayList<>(copies.getReplicas());
      replicas.remove(chosen);
      if (copies.getPrimary() != null && !replicas.contains(copies.getPrimary())) {
        replicas.add(copies.getPrimary()); // it rejoins as a replica when it returns
      }
      LOG.info("shard {}: primary {} is gone; promoting in-sync replica {} in term {} (sequence numbers of the "
          + "candidates: {})", shard, copies.getPrimary(), chosen, copies.getTerm() + 1, progress);
      // No replica is in sync with the new primary yet: each reopens, empties its translog and copies the new
      // primary's files, so one left listed could be promoted next while lacking writes the new primary acknowledged.
      return ShardCopies.newBuilder(copies).setPrimary(chosen).setTerm(copies.getTerm() + 1).setReplicas(replicas)
          .setInSync(List.of()).build();
    });
  }

  /** Keeps {@code replicasPerShard} live replicas, adding the least loaded live servers and dropping dead extras. */
  private void assignReplicas(int shard) throws Exception {
    cluster.update(shard, copies -> {
      ClusterState state = cluster.current();
      List<String> replicas = new ArrayList<>(copies.getReplicas());
      long live = replicas.stream().filter(state::live).count();
      if (live < replicasPerShard) {
        List<String> candidates = state.servers().keySet().stream()
            .filter(server -> !server.equals(copies.getPrimary()) && !replicas.contains(server))
            .sorted(Comparator.<String>comparingLong(state::copiesOn).thenComparing(Comparator.naturalOrder()))
            .toList();
        for (String server : candidates.subList(0, (int) Math.min(candidates.size(), replicasPerShard - live))) {
          replicas.add(server);
          LOG.info("shard {}: replica assigned to {}", shard, server);
        }
      }
      // Dead replicas beyond the wanted number go; fewer may stay, to catch up when their server returns.
      for (int i = replicas.size() - 1; i >= 0 && replicas.size() > replicasPerShard; i--) {
        if (!state.live(replicas.get(i))) {
          LOG.info("shard {}: replica on {} (gone) unassigned", shard, replicas.remove(i));
        }
      }
      List<String> inSync = new ArrayList<>(copies.getInSync());
      inSync.retainAll(replicas);
      return ShardCopies.newBuilder(copies).setReplicas(replicas).setInSync(inSync).build();
    });
  }

  boolean isMaster() {
    return latch.hasLeadership();
  }

  @Override
  public void close() {
    failureDetector.close();
    executor.shutdownNow();
    try {
      latch.close();
    } catch (IOException | IllegalStateException e) {
      LOG.debug("closing the master latch failed", e);
    }
  }
}
