package io.evenkeel.ingest.detect;

import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.AvroTrust;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * CheckHotSpot and ComputeOffsetSize over the monitor's window summaries (ESDB's Algorithm 1, via {@link
 * BalancePlanner}). To avoid oscillation a tenant is proposed only when it is hot in two windows in a row, when it
 * needs a larger L than the committed rules give its new rows, and not again within the rest period.
 */
public final class HotspotDetector extends KeyedProcessFunction<Integer, WindowSummary, RuleProposal> {
  private final IngestSettings settings;
  private transient BalancePlanner planner;
  private transient CuratorFramework zookeeper;
  private transient RuleListClient rules;
  private transient MapState<Long, Integer> hotStreaks;
  private transient MapState<Long, Long> lastProposedAt;
  private transient volatile double topShare;
  private transient volatile long topTenant;

  public HotspotDetector(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    AvroTrust.install();
    planner = BalancePlanner.builder(settings.numShards).maxTenantShareOfShard(settings.maxTenantShareOfShard).build();
    zookeeper = settings.startZooKeeperClient();
    rules = new RuleListClient(zookeeper, settings.protocolConfig());
    rules.start();
    hotStreaks = getRuntimeContext().getMapState(new MapStateDescriptor<>("hot-streaks", Long.class, Integer.class));
    lastProposedAt = getRuntimeContext().getMapState(
        new MapStateDescriptor<>("last-proposed-at", Long.class, Long.class));
    getRuntimeContext().getMetricGroup().gauge("topTenantShare", () -> topShare);
    getRuntimeContext().getMetricGroup().gauge("topTenant", () -> topTenant);
  }

  @Override
  public void processElement(WindowSummary summary, Context context, Collector<RuleProposal> out) throws Exception {
    if (!summary.getTopTenants().isEmpty()) {
      topShare = summary.getTopTenants().get(0).getShare();
      topTenant = summary.getTopTenants().get(0).getTenantId();
    }
    Set<Long> hotNow = new HashSet<>();
    for (TenantShare tenant : summary.getTopTenants()) {
      if (!planner.checkHotSpot(tenant.getShare())) {
        continue;
      }
      long id = tenant.getTenantId();
      hotNow.add(id);
      Integer previous = hotStreaks.get(id);
      int streak = previous == null ? 1 : previous + 1;
      hotStreaks.put(id, streak);
      int current = rules.current().offsetSizeFor(id, Long.MAX_VALUE);
      int proposed = planner.computeOffsetSize(tenant.getShare());
      Long last = lastProposedAt.get(id);
      boolean rested = last == null || summary.getWindowEnd() - last >= settings.proposalRestMs;
      if (streak >= 2 && proposed > current && rested) {
        lastProposedAt.put(id, summary.getWindowEnd());
        out.collect(RuleProposal.newBuilder()
            .setProposalId(UUID.randomUUID().toString())
            .setTenantId(id)
            .setObservedShare(tenant.getShare())
            .setProposedOffsetSize(proposed)
            .setWindowStart(summary.getWindowStart())
            .setWindowEnd(summary.getWindowEnd())
            .setReason(String.format(Locale.ROOT,
                "share %.4f > %.4f in %d windows in a row; L %d -> %d puts %.4f on each shard",
                tenant.getShare(), planner.hotShareThreshold(), streak, current, proposed,
                tenant.getShare() / proposed))
            .setProposedAt(System.currentTimeMillis())
            .build());
      }
    }
    List<Long> cooled = new ArrayList<>();
    for (Long id : hotStreaks.keys()) {
      if (!hotNow.contains(id)) {
        cooled.add(id);
      }
    }
    for (Long id : cooled) {
      hotStreaks.remove(id);
    }
  }

  @Override
  public void close() {
    if (rules != null) {
      rules.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
