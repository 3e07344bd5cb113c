package io.evenkeel.ingest.detect;

import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.OffsetSizeGovernor;
import io.evenkeel.router.planner.OffsetSizeProposal;
import io.evenkeel.router.planner.TenantTrend;
import io.evenkeel.router.planner.WindowLoad;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.ShardLoad;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.AvroTrust;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * CheckHotSpot and ComputeOffsetSize over the monitor's window summaries (ESDB's Algorithm 1), damped by the {@link
 * OffsetSizeGovernor}: widen a tenant hot in two windows in a row when it pays, narrow a widened one that has stayed
 * cool, and rest between proposals. Each tenant's memory is keyed state, so it survives a restart.
 */
public final class HotspotDetector extends KeyedProcessFunction<Integer, WindowSummary, RuleProposal> {
  private final IngestSettings settings;
  private transient OffsetSizeGovernor governor;
  /** The monitor lists every tenant above this share of the writes (see {@link IngestSettings#monitorReportShare}). */
  private transient double reportShare;
  private transient CommittedRules rules;
  private transient MapState<Long, TenantTrend> trends;
  private transient volatile double topShare;
  private transient volatile long topTenant;

  public HotspotDetector(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    AvroTrust.install();
    int numShards = settings.placement().numShards();
    BalancePlanner planner = BalancePlanner.builder(numShards)
        .maxTenantShareOfShard(settings.balancer().maxTenantShareOfShard()).build();
    governor = new OffsetSizeGovernor(planner, ShardFormula.standard(numShards),
        settings.balancer().governorSettings());
    reportShare = settings.monitorReportShare();
    rules = CommittedRules.open(settings);
    trends = getRuntimeContext().getMapState(new MapStateDescriptor<>("tenant-trends", Long.class, TenantTrend.class));
    getRuntimeContext().getMetricGroup().gauge("topTenantShare", () -> topShare);
    getRuntimeContext().getMetricGroup().gauge("topTenant", () -> topTenant);
  }

  @Override
  public void processElement(WindowSummary summary, Context context, Collector<RuleProposal> out) throws Exception {
    if (!summary.getTopTenants().isEmpty()) {
      topShare = summary.getTopTenants().get(0).getShare();
      topTenant = summary.getTopTenants().get(0).getTenantId();
    }
    Map<Long, TenantTrend> remembered = new HashMap<>();
    for (Map.Entry<Long, TenantTrend> entry : trends.entries()) {
      remembered.put(entry.getKey(), entry.getValue());
    }
    for (OffsetSizeProposal proposal : governor.decide(windowLoad(summary), rules.current(), remembered)) {
      out.collect(RuleProposal.newBuilder()
          .setProposalId(UUID.randomUUID().toString())
          .setTenantId(proposal.tenant())
          .setObservedShare(proposal.share())
          .setProposedOffsetSize(proposal.proposedOffsetSize())
          .setCoolDown(proposal.coolDown())
          .setWindowStart(summary.getWindowStart())
          .setWindowEnd(summary.getWindowEnd())
          .setReason(proposal.reason())
          .setProposedAt(System.currentTimeMillis())
          .build());
    }
    trends.clear();
    trends.putAll(remembered);
  }

  private WindowLoad windowLoad(WindowSummary summary) {
    Map<Long, Long> tenantWrites = new HashMap<>();
    for (TenantShare tenant : summary.getTopTenants()) {
      tenantWrites.put(tenant.getTenantId(), tenant.getWrites());
    }
    long[] shardWrites = new long[settings.placement().numShards()];
    for (ShardLoad load : summary.getShardLoads()) {
      if (load.getShard() >= 0 && load.getShard() < shardWrites.length) {
        shardWrites[load.getShard()] = load.getWrites();
      }
    }
    // The summary lists every tenant above the report share: any other wrote less than the least listed and than it.
    long unlistedBound = Math.min(tenantWrites.values().stream().mapToLong(Long::longValue).min().orElse(0),
        (long) Math.floor(reportShare * summary.getTotalWrites()));
    return new WindowLoad(summary.getWindowStart(), summary.getWindowEnd(), tenantWrites, summary.getTotalWrites(),
        shardWrites, unlistedBound);
  }

  @Override
  public void close() {
    if (rules != null) {
      rules.close();
    }
  }
}
