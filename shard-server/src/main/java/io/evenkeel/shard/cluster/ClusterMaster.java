package io.evenkeel.shard.cluster;

import io.evenkeel.router.cluster.ClusterState;
import io.evenkeel.router.cluster.ClusterStateClient;
import io.evenkeel.schemas.ShardCopies;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's master, elected among the shard servers (a Curator {@link LeaderLatch}): when a primary's server is
 * gone (its ephemeral znode expired) it promotes the most up-to-date live in-sync replica (the one whose translog
 * holds the highest sequence number; every in-sync replica holds every acknowledged write, the most up-to-date also
 * the most of those not yet acknowledged) in a new term; it keeps {@code replicas}
 * live replicas of every shard, each on a server that holds no other copy of it, the least loaded first. A server
 * that comes back keeps its place as a replica and catches up by copying files.
 *
 * <p>Every change is a compare-and-set on the shard's znode that re-checks its reason, so a master acting on a stale
 * look changes nothing.
 */
final class ClusterMaster implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMaster.class);

  private final ClusterStateClient cluster;
  private final SequenceNumbers sequenceNumbers;
  private final int replicasPerShard;
  private final LeaderLatch latch;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "cluster-master");
    thread.setDaemon(true);
    return thread;
  });

  /** Where a copy's progress is read: the highest sequence number in its translog. */
  interface SequenceNumbers {
    long of(String server, int shard) throws IOException;
  }

  ClusterMaster(CuratorFramework client, ClusterStateClient cluster, String self, SequenceNumbers sequenceNumbers,
      int replicasPerShard) {
    this.cluster = cluster;
    this.sequenceNumbers = sequenceNumbers;
    this.replicasPerShard = replicasPerShard;
    this.latch = new LeaderLatch(client, cluster.layout().master(), self);
  }

  void start() throws Exception {
    latch.start();
    cluster.addListener(state -> {
      try {
        executor.execute(this::act);
      } catch (RejectedExecutionException closed) {
        // the master closed; the state client lives on
      }
    });
    executor.scheduleWithFixedDelay(this::act, 1, 1, TimeUnit.SECONDS);
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
        } else {
          assignReplicas(copies.getShard());
        }
      } catch (Exception e) {
        LOG.warn("shard {}: master's change failed: {}", copies.getShard(), e.toString());
      }
    }
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
        Map<String, Integer> load = load(state);
        List<String> candidates = state.servers().keySet().stream()
            .filter(server -> !server.equals(copies.getPrimary()) && !replicas.contains(server))
            .sorted(Comparator.<String>comparingInt(server -> load.getOrDefault(server, 0))
                .thenComparing(Comparator.naturalOrder()))
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

  /** Copies per live server. */
  private static Map<String, Integer> load(ClusterState state) {
    Map<String, Integer> load = new HashMap<>();
    for (ShardCopies copies : state.shards().values()) {
      if (copies.getPrimary() != null) {
        load.merge(copies.getPrimary(), 1, Integer::sum);
      }
      copies.getReplicas().forEach(replica -> load.merge(replica, 1, Integer::sum));
    }
    return load;
  }

  boolean isMaster() {
    return latch.hasLeadership();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      latch.close();
    } catch (IOException | IllegalStateException e) {
      LOG.debug("closing the master latch failed", e);
    }
  }
}
