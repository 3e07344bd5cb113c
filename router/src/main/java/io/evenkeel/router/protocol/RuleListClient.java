package io.evenkeel.router.protocol;

import io.evenkeel.cluster.lifecycle.Lifecycle;
import io.evenkeel.router.protocol.internal.Layout;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of the committed rule list: read once on {@link #start()}, then kept up to date by a watch (a Curator
 * cache on the list's znodes). Every process that routes or queries reads its rules here.
 *
 * <p>The copy is always consistent: rule i is applied only after rules 0..i-1, each new {@link RuleList} is built on
 * the client's own thread and swapped in whole, so {@link #current()} never returns a half-applied list. The cache
 * may learn of rule 8 before rule 7 (ZooKeeper lists children unordered); rule 8 then waits for rule 7.
 *
 * <p>NOTE: thread-safe. Listeners run on the client's thread, one at a time, in commit order.
 */
public final class RuleListClient implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RuleListClient.class);

  private final CuratorFramework client;
  private final Layout layout;
  private final Lifecycle lifecycle = new Lifecycle("RuleListClient");
  private final CuratorCache cache;
  private final List<RuleListListener> listeners = new CopyOnWriteArrayList<>();
  /** The only thread that stages or applies rules, so they are applied strictly in index order. */
  private final ExecutorService applier;

  private volatile RuleList current;
  /** {@link System#nanoTime()} when the connection to ZooKeeper was lost; 0 while connected and caught up. */
  private volatile long disconnectedSince;
  private final ConnectionStateListener connectionListener = (c, state) -> onConnectionState(state);

  // Applier thread only.
  private final TreeMap<Long, Rule> staged = new TreeMap<>();
  private String stalledReason;

  public RuleListClient(CuratorFramework client, RuleProtocolConfig config) {
    this.client = client;
    this.layout = config.layout();
    this.current = RuleList.empty(config.numShards());
    this.cache = CuratorCache.build(client, layout.rules());
    this.applier = Executors.newSingleThreadExecutor(daemon("evenkeel-rule-list " + layout.root()));
  }

  /** Reads the whole list, then follows it; returns once {@link #current()} holds every rule committed before. */
  public void start() throws Exception {
    lifecycle.start();
    layout.ensurePaths(client);
    cache.listenable().addListener(CuratorCacheListener.builder().forCreates(this::onCreated).build());
    client.getConnectionStateListenable().addListener(connectionListener);
    cache.start();
    refresh();
  }

  /**
   * How long this client has been cut off from ZooKeeper (0 when connected and caught up): rules committed meanwhile
   * are unknown here. A rule takes effect T after its commit, so a reader cut off for less than that still routes
   * every row correctly; readers flag answers once it passes T/2.
   */
  public long disconnectedMillis() {
    long since = disconnectedSince;
    return since == 0 ? 0 : Math.max(1, (System.nanoTime() - since) / 1_000_000);
  }

  /** After a reconnection: reads what was committed meanwhile, retrying each second, and only then clears the flag. */
  private void catchUp() {
    while (lifecycle.isStarted()) {
      try {
        refresh();
        disconnectedSince = 0;
        LOG.info("rule list {}: reconnected and caught up ({} rules)", layout.rules(), current.size());
        return;
      } catch (Exception e) {
        LOG.warn("rule list {}: reading the rules after reconnecting failed, retrying: {}", layout.rules(),
            e.toString());
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  private void onConnectionState(ConnectionState state) {
    switch (state) {
      case SUSPENDED, LOST -> {
        if (disconnectedSince == 0) {
          disconnectedSince = System.nanoTime();
          LOG.warn("rule list {}: disconnected from ZooKeeper ({}); rules committed meanwhile are unknown here",
              layout.rules(), state);
        }
      }
      case RECONNECTED -> CompletableFuture.runAsync(this::catchUp);
      default -> {
        // CONNECTED comes once, before start() reads the list; READ_ONLY is not enabled.
      }
    }
  }

  /** The committed rules as last applied here: complete up to some index, never half of a commit. */
  public RuleList current() {
    return current;
  }

  public void addListener(RuleListListener listener) {
    listeners.add(listener);
  }

  public void removeListener(RuleListListener listener) {
    listeners.remove(listener);
  }

  /**
   * Reads the list from ZooKeeper now, applies what the watch has not delivered yet, and returns the result: every
   * rule committed before this call started is in it. Used after a session expiry and by the master before a round.
   */
  public RuleList refresh() throws Exception {
    lifecycle.checkStarted();
    long known = current.size();
    Map<Long, Rule> read = new TreeMap<>();
    for (String name : client.getChildren().forPath(layout.rules())) {
      long index = Layout.ruleIndex(name);
      if (index >= known) {
        String path = layout.rules() + "/" + name;
        try {
          read.put(index, Rule.fromAvro(Layout.decode(Layout.RULES, path, client.getData().forPath(path))));
        } catch (IllegalStateException | IllegalArgumentException corrupt) {
          onApplier(() -> stall("rule " + path + ": " + corrupt.getMessage()));
          throw corrupt;
        }
      }
    }
    try {
      applier.submit(() -> {
        staged.putAll(read);
        applyStaged();
      }).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("applying the rules read from " + layout.rules() + " failed", e.getCause());
    }
    return current;
  }

  @Override
  public void close() {
    if (lifecycle.close()) {
      client.getConnectionStateListenable().removeListener(connectionListener);
      cache.close();
      applier.shutdownNow();
    }
  }

  private void onCreated(ChildData data) {
    String name = ZKPaths.getNodeFromPath(data.getPath());
    long index = Layout.ruleIndex(name);
    if (index < 0 || !data.getPath().equals(layout.rule(index))) {
      return;
    }
    onApplier(() -> {
      if (index < current.size() || staged.containsKey(index)) {
        return;
      }
      try {
        staged.put(index, Rule.fromAvro(Layout.decode(Layout.RULES, data.getPath(), data.getData())));
      } catch (IllegalStateException | IllegalArgumentException corrupt) {
        stall("rule " + data.getPath() + ": " + corrupt.getMessage());
        return;
      }
      applyStaged();
    });
  }

  /** Applies the staged rules that continue the current list without a gap, as one new list. */
  private void applyStaged() {
    RuleList list = current;
    List<Rule> next = new ArrayList<>();
    for (long index = list.size(); staged.containsKey(index); index++) {
      next.add(staged.get(index));
    }
    staged.headMap((long) list.size() + next.size()).clear();
    if (next.isEmpty() || stalledReason != null) {
      return;
    }
    RuleList grown;
    try {
      grown = list.appendAll(next);
    } catch (IllegalArgumentException unusable) {
      stall("rules " + list.size() + ".." + (list.size() + next.size() - 1) + ": " + unusable.getMessage());
      return;
    }
    current = grown;
    for (RuleListListener listener : listeners) {
      try {
        listener.ruleListChanged(grown);
      } catch (RuntimeException e) {
        LOG.error("rule list listener {} failed", listener, e);
      }
    }
  }

  private void stall(String reason) {
    if (stalledReason != null) {
      return;
    }
    stalledReason = "the rule list under " + layout.rules() + " cannot be applied past rule " + current.size()
        + ": " + reason;
    LOG.error(stalledReason);
    listeners.forEach(listener -> listener.ruleListStalled(stalledReason));
  }

  private void onApplier(Runnable task) {
    try {
      applier.execute(task);
    } catch (RejectedExecutionException closed) {
      // Closed: nothing to apply any more.
    }
  }

  static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
