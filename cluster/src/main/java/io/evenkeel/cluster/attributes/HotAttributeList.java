package io.evenkeel.cluster.attributes;

import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's hot attribute keys (frequency-based indexing) in ZooKeeper: one node, {@code <root>/attributes/hot},
 * holding the keys one a line, written by compare-and-set so that concurrent writers cannot lose each other's list,
 * and followed by a cache. The query service's publisher writes it from the keys its queries use most; shard servers
 * index the keys it names from the moment they read it, and the query service pushes filters on them to the index.
 * No reader has to agree with another at any moment: shard documents record which keys they indexed.
 */
public final class HotAttributeList implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(HotAttributeList.class);

  /** The list as read: its keys and the node's version (-1 before anything was published). */
  public record Published(SortedSet<String> keys, int version) {
    public static final Published NONE = new Published(new TreeSet<>(), -1);
  }

  private final CuratorFramework client;
  private final String path;
  private final CuratorCache cache;
  private final List<Consumer<Published>> listeners = new CopyOnWriteArrayList<>();
  private volatile Published current = Published.NONE;
  /** The ZooKeeper transaction that last wrote the list read: unlike the version, it grows across a re-creation. */
  private long currentZxid = -1;

  public HotAttributeList(CuratorFramework client, String root) {
    this.client = client;
    this.path = path(root);
    this.cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
  }

  /** Whether {@code key} can be an attribute key: non-empty, without the ';' and ':' that separate pairs. */
  public static boolean isValidKey(String key) {
    return !key.isEmpty() && key.indexOf(';') < 0 && key.indexOf(':') < 0 && key.indexOf('\n') < 0;
  }

  /** The node that holds the list under the cluster's {@code root}. */
  public static String path(String root) {
    return ZKPaths.makePath(root, "attributes", "hot");
  }

  /** The node under which the query services elect the one that publishes. */
  public static String leaderPath(String root) {
    return ZKPaths.makePath(root, "attributes", "publisher");
  }

  /** Reads the list, then follows it. */
  public HotAttributeList start() throws Exception {
    client.createContainers(ZKPaths.getPathAndNode(path).getPath());
    CountDownLatch initialized = new CountDownLatch(1);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> read(after))
        .forInitialized(initialized::countDown)
        .build());
    cache.start();
    initialized.await();
    cache.get(path).ifPresent(this::read);
    return this;
  }

  /** Calls {@code listener} with every list read from now on (on the cache's thread), and with the current one. */
  public synchronized void addListener(Consumer<Published> listener) {
    listeners.add(listener);
    listener.accept(current);
  }

  /** The list as last read. */
  public Published current() {
    return current;
  }

  /**
   * Makes {@code keys} the cluster's list unless it is already; a concurrent writer's list is read again and
   * replaced. Returns whether the list changed.
   */
  public boolean publish(Set<String> keys) throws Exception {
    SortedSet<String> sorted = new TreeSet<>(keys);
    byte[] data = String.join("\n", sorted).getBytes(StandardCharsets.UTF_8);
    while (true) {
      Stat stat = new Stat();
      byte[] existing;
      try {
        existing = client.getData().storingStatIn(stat).forPath(path);
      } catch (KeeperException.NoNodeException absent) {
        try {
          client.create().creatingParentContainersIfNeeded().forPath(path, data);
          return true;
        } catch (KeeperException.NodeExistsException raced) {
          continue;
        }
      }
      if (parse(existing).equals(sorted)) {
        return false;
      }
      try {
        client.setData().withVersion(stat.getVersion()).forPath(path, data);
        return true;
      } catch (KeeperException.BadVersionException raced) {
        // another writer came first: compare with its list
      }
    }
  }

  private synchronized void read(ChildData node) {
    if (node == null || node.getStat() == null) {
      return;
    }
    long zxid = node.getStat().getMzxid();
    if (zxid <= currentZxid) {
      return;
    }
    Published next = new Published(parse(node.getData()), node.getStat().getVersion());
    currentZxid = zxid;
    current = next;
    LOG.info("hot attribute keys (version {}): {}", next.version(), next.keys());
    listeners.forEach(listener -> listener.accept(next));
  }

  private static SortedSet<String> parse(byte[] data) {
    String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
    return Arrays.stream(text.split("\n")).map(String::strip).filter(key -> !key.isEmpty())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Override
  public void close() {
    cache.close();
  }
}
