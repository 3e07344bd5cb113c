package io.evenkeel.cluster.state;

import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardServerInfo;
import io.evenkeel.schemas.codec.MalformedRecordException;
import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's view of the cluster state in ZooKeeper, kept current by a Curator cache, and the writes to it. Every
 * process that routes (the ingest sink, the query service, the launcher's status line) reads placement here; shard
 * servers also register and update shards.
 *
 * <p>Snapshots are rebuilt whole on every change and swapped in, so {@link #current()} is always one consistent look.
 * Listeners run on the client's own thread, one at a time.
 */
public final class ClusterStateClient implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterStateClient.class);

  private final CuratorFramework client;
  private final ClusterLayout layout;
  private final CuratorCache cache;
  private final List<Consumer<ClusterState>> listeners = new CopyOnWriteArrayList<>();
  private final ExecutorService notifier;
  private volatile ClusterState current = ClusterState.EMPTY;
  private PersistentNode registration;

  public ClusterStateClient(CuratorFramework client, String root) {
    this.client = client;
    this.layout = new ClusterLayout(root);
    this.cache = CuratorCache.build(client, layout.cluster());
    this.notifier = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "evenkeel-cluster-state " + root);
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Reads the state, then follows it. */
  public void start() throws Exception {
    for (String path : List.of(layout.servers(), layout.shards())) {
      client.createContainers(path);
    }
    CountDownLatch initialized = new CountDownLatch(1);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forAll((type, before, after) -> notifier.execute(this::rebuild))
        .forInitialized(initialized::countDown)
        .build());
    cache.start();
    initialized.await();
    notifier.submit(this::rebuild).get();
  }

  public ClusterLayout layout() {
    return layout;
  }

  /** The state as last read. */
  public ClusterState current() {
    return current;
  }

  /** Calls {@code listener} with every new state (and now, with the current one). */
  public void addListener(Consumer<ClusterState> listener) {
    listeners.add(listener);
    notifier.execute(() -> listener.accept(current));
  }

  private void rebuild() {
    Map<String, ShardServerInfo> servers = new HashMap<>();
    Map<Integer, ShardCopies> shards = new HashMap<>();
    Map<Integer, Integer> versions = new HashMap<>();
    cache.stream().forEach(node -> {
      ZKPaths.PathAndNode parts = ZKPaths.getPathAndNode(node.getPath());
      try {
        if (parts.getPath().equals(layout.servers()) && node.getData() != null && node.getData().length > 0) {
          servers.put(parts.getNode(), ClusterLayout.SERVERS.decode(node.getData()));
        } else if (parts.getPath().equals(layout.shards()) && node.getData() != null && node.getData().length > 0) {
          ShardCopies copies = ClusterLayout.SHARDS.decode(node.getData());
          shards.put(copies.getShard(), copies);
          versions.put(copies.getShard(), node.getStat().getVersion());
        }
      } catch (MalformedRecordException e) {
        LOG.error("cluster state znode {} is unreadable: {}", node.getPath(), e.getMessage());
      }
    });
    ClusterState next = new ClusterState(servers, shards, versions);
    if (next.equals(current)) {
      return;
    }
    current = next;
    for (Consumer<ClusterState> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) {
        LOG.error("a cluster state listener failed", e);
      }
    }
  }

  /**
   * Registers a live server: an ephemeral znode that goes with this client's session, and is created again when a
   * new session replaces an expired one (Curator's {@link PersistentNode}).
   */
  public void register(String address) throws Exception {
    byte[] data = ClusterLayout.SERVERS.encode(ShardServerInfo.newBuilder().setAddress(address)
        .setStarted(System.currentTimeMillis()).build());
    try {
      // A previous session of this server that ZooKeeper has not expired yet: take its place.
      client.delete().forPath(layout.server(address));
    } catch (KeeperException.NoNodeException e) {
      // the usual case
    }
    PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, layout.server(address), data);
    node.start();
    if (!node.waitForInitialCreate(30, TimeUnit.SECONDS)) {
      node.close();
      throw new IllegalStateException("registering " + address + " in ZooKeeper took over 30 s");
    }
    registration = node;
  }

  /** The ZooKeeper session that holds {@code address}'s registration; 0 when none does. */
  public long registrationSession(String address) throws Exception {
    Stat stat = client.checkExists().forPath(layout.server(address));
    return stat == null ? 0 : stat.getEphemeralOwner();
  }

  /**
   * Takes a server found gone out of the cluster before ZooKeeper expires its session: removes what that session
   * holds, its registration (so its shards' replicas are promoted) and its place in the master election (so, were it
   * the master, the next server takes over). Nothing is removed, and false returned, once another session holds the
   * registration: the server came back.
   */
  public boolean removeGoneServer(String address, long session) throws Exception {
    Stat stat = client.checkExists().forPath(layout.server(address));
    if (stat == null || stat.getEphemeralOwner() != session) {
      return false;
    }
    try {
      client.delete().withVersion(stat.getVersion()).forPath(layout.server(address));
    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
      return false;
    }
    List<String> candidates = client.checkExists().forPath(layout.master()) == null ? List.of()
        : client.getChildren().forPath(layout.master());
    for (String candidate : candidates) {
      String path = ZKPaths.makePath(layout.master(), candidate);
      Stat held = client.checkExists().forPath(path);
      if (held != null && held.getEphemeralOwner() == session) {
        try {
          client.delete().withVersion(held.getVersion()).forPath(path);
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
          // gone already
        }
      }
    }
    return true;
  }

  /** Lays a shard out, unless it is already: the first layout comes from configuration. */
  public boolean createIfAbsent(ShardCopies copies) throws Exception {
    try {
      client.create().creatingParentContainersIfNeeded().forPath(layout.shard(copies.getShard()),
          ClusterLayout.SHARDS.encode(copies));
      return true;
    } catch (KeeperException.NodeExistsException e) {
      return false;
    }
  }

  /**
   * Changes a shard's copies by compare-and-set: reads the znode, applies {@code change} and writes the result if no
   * one wrote in between (else retries). {@code change} returns null to leave the znode as it is. Answers the copies
   * now stored.
   */
  public Optional<ShardCopies> update(int shard, UnaryOperator<ShardCopies> change) throws Exception {
    String path = layout.shard(shard);
    while (true) {
      Stat stat = new Stat();
      ShardCopies stored;
      try {
        stored = ClusterLayout.SHARDS.decode(client.getData().storingStatIn(stat).forPath(path));
      } catch (KeeperException.NoNodeException e) {
        return Optional.empty();
      }
      ShardCopies changed = change.apply(ShardCopies.newBuilder(stored).build());
      if (changed == null || changed.equals(stored)) {
        return Optional.of(stored);
      }
      try {
        client.setData().withVersion(stat.getVersion()).forPath(path, ClusterLayout.SHARDS.encode(changed));
        return Optional.of(changed);
      } catch (KeeperException.BadVersionException e) {
        // Someone wrote in between: read again.
      }
    }
  }

  @Override
  public void close() {
    if (registration != null) {
      try {
        registration.close();
      } catch (IOException e) {
        LOG.debug("closing the registration failed", e);
      }
    }
    cache.close();
    notifier.shutdownNow();
  }
}
