package io.evenkeel.query.console;

import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the web console shows besides query results, each as one JSON-ready view: the cluster, the hot tenants with
 * the spread their new rows get now, the committed rule list, and where the Flink UI is. Built from what the query
 * service follows anyway (the placement, the routing rules) and, when it is given the job's Kafka, the window
 * summaries of the job's tenant monitor.
 */
public final class Console implements AutoCloseable {
  /** Windows without a newer summary (beyond the slack) after which the hot tenants are said to be stale. */
  private static final int STALE_WINDOWS = 3;
  private static final long STALE_SLACK_MS = 10_000;

  private final ClusterOverview cluster;
  private final HotTenantFeed feed;
  private final Supplier<RoutingPolicy> routing;
  private final Supplier<RuleList> rules;
  private final String flinkUi;

  /**
   * {@code feed} null: no Kafka was given, so no hot tenants; {@code flinkUi} null: no link. {@code rules} is the
   * list queries route by (empty under a fixed policy).
   */
  public Console(ClusterOverview cluster, HotTenantFeed feed, Supplier<RoutingPolicy> routing,
      Supplier<RuleList> rules, String flinkUi) {
    this.cluster = Objects.requireNonNull(cluster);
    this.feed = feed;
    this.routing = Objects.requireNonNull(routing);
    this.rules = Objects.requireNonNull(rules);
    this.flinkUi = flinkUi;
  }

  /** A tenant of the newest window: its writes, its share of all writes, and over how many shards it writes now. */
  public record HotTenant(long tenant, long writes, double share, int spreadNow) {}

  /** One window's totals, for the throughput history. */
  public record WindowTotal(long windowStart, long windowEnd, long totalWrites, int activeTenants, long topTenant,
      double topShare) {}

  /**
   * The newest window's top tenants and the windows before it. {@code status} says why there are none (no Kafka
   * given, no topic yet, Kafka unreachable) or is null.
   */
  public record HotTenants(String topic, String status, long windowStart, long windowEnd, long totalWrites,
      List<HotTenant> tenants, List<WindowTotal> windows) {}

  /** A committed rule: from {@code effectiveTime} on, new rows of {@code tenants} spread over L or a table. */
  public record RuleView(long effectiveTime, int offsetSize, List<Long> tenants, boolean coolDown,
      List<Integer> tableShards) {}

  /** The rule list and the clock it is read against (rules effective later than {@code now} are pending). */
  public record Rules(String policy, int numShards, long now, List<RuleView> rules) {}

  /** Where the console links to. */
  public record Links(String flinkUi) {}

  public ClusterOverview.Snapshot cluster() {
    return cluster.snapshot();
  }

  public HotTenants hotTenants() {
    if (feed == null) {
      return new HotTenants(null, "the query service follows no Kafka: start it with --bootstrap-servers to see the "
          + "ingest job's window summaries", 0, 0, 0, List.of(), List.of());
    }
    List<WindowSummary> windows = feed.windows();
    List<WindowTotal> totals = new ArrayList<>();
    for (WindowSummary window : windows) {
      TenantShare top = window.getTopTenants().isEmpty() ? null : window.getTopTenants().get(0);
      totals.add(new WindowTotal(window.getWindowStart(), window.getWindowEnd(), window.getTotalWrites(),
          window.getActiveTenants(), top == null ? -1 : top.getTenantId(), top == null ? 0 : top.getShare()));
    }
    if (windows.isEmpty()) {
      return new HotTenants(feed.topic(), feed.problem() != null ? feed.problem() : "no window summary yet",
          0, 0, 0, List.of(), totals);
    }
    WindowSummary newest = windows.get(windows.size() - 1);
    RoutingPolicy policy = routing.get();
    long now = System.currentTimeMillis();
    String status = feed.problem();
    long age = now - newest.getWindowEnd();
    long windowMs = newest.getWindowEnd() - newest.getWindowStart();
    if (status == null && age > STALE_WINDOWS * windowMs + STALE_SLACK_MS) {
      // The job writes a summary once a window closes; none for this long means it stopped, or its input did.
      status = "the newest window ended " + age / 1_000 + " s ago: is the ingest job running, and are changes "
          + "arriving?";
    }
    List<HotTenant> tenants = new ArrayList<>();
    for (TenantShare share : newest.getTopTenants()) {
      tenants.add(new HotTenant(share.getTenantId(), share.getWrites(), share.getShare(),
          policy.spreadAt(share.getTenantId(), now)));
    }
    return new HotTenants(feed.topic(), status, newest.getWindowStart(), newest.getWindowEnd(),
        newest.getTotalWrites(), tenants, totals);
  }

  public Rules rules() {
    RuleList list = rules.get();
    List<RuleView> views = new ArrayList<>();
    for (Rule rule : list.rules()) {
      views.add(new RuleView(rule.effectiveTime(), rule.offsetSize(), Arrays.stream(rule.tenants()).boxed().toList(),
          rule.coolDown(), rule.table() == null ? null : Arrays.stream(rule.table().shards()).boxed().toList()));
    }
    return new Rules(routing.get().name(), list.numShards(), System.currentTimeMillis(), views);
  }

  public Links links() {
    return new Links(flinkUi);
  }

  @Override
  public void close() throws InterruptedException {
    cluster.close();
    if (feed != null) {
      feed.close();
    }
  }
}
