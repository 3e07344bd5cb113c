package io.evenkeel.shard.cluster;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.shard.replication.InSyncSet;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard server as a member of a cluster whose state lives in ZooKeeper: it registers (an ephemeral znode: its
 * liveness), lays out the shards it was configured with if no one has yet, and then holds exactly the copies the
 * state assigns it, in their roles: a primary in its term, a replica following the current primary. It records its
 * primaries' in-sync sets there, and takes part in electing the master ({@link ClusterMaster}).
 */
public final class ClusterMember implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);

  private final ShardHolder server;
  private final ClusterStateClient cluster;
  private final Set<Integer> initialPrimaries;
  private final ClusterMaster master;
  /** Applies states one at a time, off the state client's thread (opening a shard takes a while). */
  private final ExecutorService reconciler = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "cluster-member");
    thread.setDaemon(true);
    return thread;
  });
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "cluster-member-retry");
    thread.setDaemon(true);
    return thread;
  });

  /**
   * @param initialPrimaries the shards this server lays out as their primary when the cluster state has no entry for
   *     them yet (the first layout, from configuration)
   * @param replicasPerShard how many replicas the master keeps of each shard, when this server is the master
   * @param rebalance whether the master, when this server is, evens the servers' loads by moving copies
   */
  public ClusterMember(ShardHolder server, CuratorFramework client, String root, Set<Integer> initialPrimaries,
      int replicasPerShard, boolean rebalance) {
    this.server = server;
    this.cluster = new ClusterStateClient(client, root);
    this.initialPrimaries = new TreeSet<>(initialPrimaries);
    this.master = new ClusterMaster(client, cluster, server.address(), server::sequenceNumberOf,
        replicasPerShard, rebalance);
  }

  /**
   * Joins the cluster: call after the server started, so that its address is known. Returns once the server holds
   * the copies the state assigns it now (so a writer that finds it primary in the state finds the shard open).
   */
  public void start() throws Exception {
    server.recordInSyncSets(this::inSyncSet);
    server.admitReplicas((shard, address) -> cluster.current().copies(shard)
        .map(copies -> copies.getReplicas().contains(address)).orElse(false));
    cluster.start();
    for (int shard : initialPrimaries) {
      if (cluster.createIfAbsent(ShardCopies.newBuilder().setShard(shard).setPrimary(server.address()).setTerm(1)
          .setReplicas(List.of()).setInSync(List.of()).build())) {
        LOG.info("shard {}: laid out with its primary here ({})", shard, server.address());
      }
    }
    cluster.register(server.address());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!cluster.current().live(server.address())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(server.address() + " registered but does not see itself in the state");
      }
      Thread.sleep(20);
    }
    reconciler.submit(() -> reconcile(cluster.current())).get();
    // Each run reads the state as it is then: a run queued with an older state must not undo a newer one.
    cluster.addListener(state -> {
      try {
        reconciler.execute(() -> reconcile(cluster.current()));
      } catch (RejectedExecutionException closed) {
        // the member is closing
      }
    });
    master.start();
    // A copy that failed to open (its primary unreachable, say) is retried with the state as it is then.
    retries.scheduleWithFixedDelay(() -> reconciler.execute(() -> reconcile(cluster.current())), 2, 2,
        TimeUnit.SECONDS);
  }

  public ClusterStateClient cluster() {
    return cluster;
  }

  /** Holds the copies {@code state} assigns this server, in their roles; releases the others. */
  private void reconcile(ClusterState state) {
    String self = server.address();
    if (!state.live(self)) {
      return; // not registered yet, or the session was lost: hold what we have until we are back
    }
    for (ShardCopies copies : state.shards().values()) {
      int shard = copies.getShard();
      try {
        if (self.equals(copies.getPrimary())) {
          long term = server.holds(shard) ? copies.getTerm() : nextTerm(copies);
          if (term > 0) {
            server.holdPrimary(shard, term);
          }
        } else if (copies.getReplicas().contains(self)) {
          if (state.live(copies.getPrimary())) {
            server.holdReplica(shard, copies.getPrimary());
          }
        } else if (server.holds(shard)) {
          server.release(shard);
        }
      } catch (Exception e) {
        LOG.warn("shard {}: holding the copy the cluster state assigns failed; retrying: {}", shard, e.toString());
      }
    }
  }

  /**
   * A primary this server opens from its directory (a restart, or a reopen after a failure) takes a new term first,
   * with an empty in-sync set: its NRT point versions start again from its last commit, and a replica that kept files
   * from before must not take a reused version for the point it already has. Answers the new term, or 0 when the
   * state changed meanwhile (the next reconcile acts on it).
   */
  private long nextTerm(ShardCopies copies) throws Exception {
    String self = server.address();
    long term = copies.getTerm();
    return cluster.update(copies.getShard(), stored -> self.equals(stored.getPrimary()) && stored.getTerm() == term
            ? ShardCopies.newBuilder(stored).setTerm(term + 1).setInSync(List.of()).build() : null)
        .filter(stored -> self.equals(stored.getPrimary()) && stored.getTerm() == term + 1)
        .map(ShardCopies::getTerm).orElse(0L);
  }

  /** The in-sync set of {@code shard}'s primary in {@code term}, recorded in the shard's znode. */
  private InSyncSet inSyncSet(int shard, long term) {
    return new InSyncSet() {
      @Override
      public void joined(String replica) throws Exception {
        change(replica, true);
      }

      @Override
      public void left(String replica) throws Exception {
        change(replica, false);
      }

      @Override
      public void reset() throws Exception {
        change(inSync -> inSync.clear());
      }

      private void change(String replica, boolean add) throws Exception {
        change(inSync -> {
          inSync.remove(replica);
          if (add) {
            inSync.add(replica);
          }
        });
      }

      private void change(Consumer<List<String>> edit) throws Exception {
        cluster.update(shard, copies -> {
          if (!server.address().equals(copies.getPrimary()) || copies.getTerm() != term) {
            throw new IllegalStateException("shard " + shard + ": this server is no longer its primary in term "
                + term + " (the cluster state says " + copies.getPrimary() + " in term " + copies.getTerm() + ")");
          }
          List<String> inSync = new ArrayList<>(copies.getInSync());
          edit.accept(inSync);
          inSync.retainAll(copies.getReplicas());
          return ShardCopies.newBuilder(copies).setInSync(inSync).build();
        }).orElseThrow(() -> new IllegalStateException("shard " + shard + " has no entry in the cluster state"));
      }
    };
  }

  /** Leaves the cluster: the server's copies stay as they are until the server closes. */
  @Override
  public void close() {
    retries.shutdownNow();
    master.close();
    // Not shutdownNow: interrupting a copy opening or closing in the middle of Lucene's I/O breaks its IndexWriter.
    reconciler.shutdown();
    try {
      if (!reconciler.awaitTermination(60, TimeUnit.SECONDS)) {
        LOG.warn("a change of role still running after 60 s; leaving the cluster anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cluster.close();
  }
}
