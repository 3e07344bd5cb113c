package io.evenkeel.router.protocol;

import io.evenkeel.cluster.lifecycle.Lifecycle;
import io.evenkeel.router.protocol.internal.Layout;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.ProposalOutcome;
import io.evenkeel.schemas.RuleRound;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;

/**
 * Submits rule proposals to the master (as proposal znodes) and completes each one's future when the master decides
 * it. Any process may propose; the ingest job's hot-spot detector is the usual one.
 *
 * <p>Proposals are deduplicated and rate-limited here: a tenant already at the requested L under the committed list,
 * or named by a round still in flight (from any proposer), is left out; a request left with no tenant, or submitted
 * sooner than {@code minInterval} after this proposer's previous proposal, completes at once as {@link
 * RoundOutcome.Status#SKIPPED}. The master checks again when it runs the round and aborts a rule that changes
 * nothing (two proposers racing).
 *
 * <p>A future stays incomplete while no master runs: bound the wait ({@link CompletableFuture#orTimeout}).
 */
public final class RuleProposer implements Closeable {
  public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(1);

  private final CuratorFramework client;
  private final RuleProtocolConfig config;
  private final Layout layout;
  private final String id;
  private final long minIntervalMs;
  private final Lifecycle lifecycle;
  private final RuleListClient rules;
  private final CuratorCache proposals;
  /** This proposer's undecided proposals, by znode name. */
  private final Map<String, CompletableFuture<RoundOutcome>> pending = new ConcurrentHashMap<>();
  /** Every undecided round in ZooKeeper, by znode name: the tenants it names. */
  private final Map<String, List<Long>> inFlight = new ConcurrentHashMap<>();
  private long lastProposedAt = Long.MIN_VALUE;

  public RuleProposer(CuratorFramework client, RuleProtocolConfig config, String id) {
    this(client, config, id, DEFAULT_MIN_INTERVAL);
  }

  /** @param minInterval the least time between two of this proposer's proposals; zero disables the limit */
  public RuleProposer(CuratorFramework client, RuleProtocolConfig config, String id, Duration minInterval) {
    if (minInterval == null || minInterval.isNegative()) {
      throw new IllegalArgumentException("minInterval must be >= 0; got: " + minInterval);
    }
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.id = Layout.checkId("proposer id", id);
    this.minIntervalMs = minInterval.toMillis();
    this.lifecycle = new Lifecycle("RuleProposer " + id);
    this.rules = new RuleListClient(client, config);
    this.proposals = CuratorCache.build(client, layout.proposals());
  }

  public void start() throws Exception {
    lifecycle.start();
    layout.ensurePaths(client);
    rules.start();
    proposals.listenable().addListener(CuratorCacheListener.builder().forAll(this::onProposalEvent).build());
    proposals.start();
  }

  /**
   * Proposes a rule; blocks for one ZooKeeper write. The future completes with the master's decision, or at once when
   * the request is skipped.
   */
  public synchronized CompletableFuture<RoundOutcome> submit(RuleRequest request) throws Exception {
    lifecycle.checkStarted();
    RuleList list = rules.current();
    List<Long> tenants = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (long tenant : request.tenants()) {
      String round = roundNaming(tenant);
      if (RuleRequest.alreadyAt(list, tenant, request.offsetSize(), request.coolDown(), request.table())) {
        skipped.add("tenant " + tenant + " is already at " + RuleRequest.currentPlacement(list, tenant));
      } else if (round != null) {
        skipped.add("tenant " + tenant + " has a round in flight (" + round + ")");
      } else {
        tenants.add(tenant);
      }
    }
    if (tenants.isEmpty()) {
      return CompletableFuture.completedFuture(RoundOutcome.skipped(String.join("; ", skipped)));
    }
    long now = config.now();
    if (lastProposedAt != Long.MIN_VALUE && now - lastProposedAt < minIntervalMs) {
      return CompletableFuture.completedFuture(RoundOutcome.skipped("rate limited: proposer " + id
          + " proposes at most once every " + minIntervalMs + " ms (minInterval); the previous proposal was "
          + (now - lastProposedAt) + " ms ago"));
    }
    RuleRound round = RuleRound.newBuilder()
        .setTenants(tenants)
        .setOffsetSize(request.offsetSize())
        .setCoolDown(request.coolDown())
        .setTable(request.table() == null ? null : request.table().toAvro())
        .setProposer(id)
        .setReason(request.reason())
        .setProposedAt(now)
        .build();
    String path = client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
        .forPath(layout.newProposal(), Layout.ROUNDS.encode(round));
    String name = ZKPaths.getNodeFromPath(path);
    CompletableFuture<RoundOutcome> future = new CompletableFuture<>();
    pending.put(name, future);
    inFlight.put(name, tenants);
    lastProposedAt = now;
    // The cache may have seen the decision before the future was registered.
    proposals.get(path).ifPresent(data -> observe(name, data));
    return future;
  }

  /** The committed rule list as this proposer knows it. */
  public RuleList ruleList() {
    return rules.current();
  }

  /** Fails the pending futures with a {@link CancellationException}; their rounds go on without this proposer. */
  @Override
  public void close() {
    if (!lifecycle.close()) {
      return;
    }
    proposals.close();
    rules.close();
    pending.values().forEach(future -> future.completeExceptionally(
        new CancellationException("proposer " + id + " was closed before the round was decided")));
    pending.clear();
  }

  @Override
  public String toString() {
    return "RuleProposer(" + id + ")";
  }

  private String roundNaming(long tenant) {
    for (Map.Entry<String, List<Long>> round : inFlight.entrySet()) {
      if (round.getValue().contains(tenant)) {
        return round.getKey();
      }
    }
    return null;
  }

  private void onProposalEvent(CuratorCacheListener.Type type, ChildData before, ChildData after) {
    ChildData node = after != null ? after : before;
    String name = layout.proposalAt(node.getPath());
    if (name == null) {
      return;
    }
    if (type == CuratorCacheListener.Type.NODE_DELETED) {
      inFlight.remove(name);
      CompletableFuture<RoundOutcome> future = pending.remove(name);
      if (future != null) {
        future.completeExceptionally(new IllegalStateException("proposal " + name + " was pruned before its outcome "
            + "reached proposer " + id + "; the committed rule list tells whether it was committed"));
      }
      return;
    }
    observe(name, node);
  }

  private void observe(String name, ChildData data) {
    RuleRound round = Layout.decode(Layout.ROUNDS, data.getPath(), data.getData());
    if (round.getOutcome() == ProposalOutcome.PROPOSED) {
      inFlight.put(name, round.getTenants());
      return;
    }
    inFlight.remove(name);
    CompletableFuture<RoundOutcome> future = pending.remove(name);
    if (future == null) {
      return;
    }
    if (round.getOutcome() == ProposalOutcome.COMMITTED) {
      Rule rule = RuleRequest.rule(round);
      future.complete(new RoundOutcome(RoundOutcome.Status.COMMITTED, name, rule, round.getRuleIndex(),
          round.getOutcomeReason()));
    } else {
      future.complete(new RoundOutcome(RoundOutcome.Status.ABORTED, name, null, -1, round.getOutcomeReason()));
    }
  }
}
