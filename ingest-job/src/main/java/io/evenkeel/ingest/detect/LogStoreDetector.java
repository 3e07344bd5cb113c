package io.evenkeel.ingest.detect;

import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.planner.LogStorePlanner;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.ShardLoad;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.AvroTrust;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code logstore} policy's balancer: LogStore's max-flow tables ({@link LogStorePlanner}) over the monitor's
 * window summaries, in place of ESDB's hotspot detector. When a shard is over its capacity in two windows in a row,
 * it plans tables for the large tenants (every one the summary reports: the job lowers the summary's report share
 * to {@link LogStorePlanner#largeShare}) and proposes each changed table as a rule (not one whose weights moved by
 * a few percent only). It plans again only once those rules are in force and a whole window has been measured under
 * them.
 */
public final class LogStoreDetector extends KeyedProcessFunction<Integer, WindowSummary, RuleProposal> {
  private static final Logger LOG = LoggerFactory.getLogger(LogStoreDetector.class);
  private final IngestSettings settings;
  private transient LogStorePlanner planner;
  private transient ShardFormula formula;
  private transient CommittedRules rules;
  private transient ValueState<Integer> overloadedStreak;
  private transient ValueState<Long> lastPlannedAt;

  public LogStoreDetector(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    AvroTrust.install();
    formula = ShardFormula.standard(settings.placement().numShards());
    planner = new LogStorePlanner(formula);
    rules = CommittedRules.open(settings);
    overloadedStreak = getRuntimeContext().getState(new ValueStateDescriptor<>("overloaded-streak", Integer.class));
    lastPlannedAt = getRuntimeContext().getState(new ValueStateDescriptor<>("last-planned-at", Long.class));
  }

  @Override
  public void processElement(WindowSummary summary, Context context, Collector<RuleProposal> out) throws Exception {
    double[] loads = new double[settings.placement().numShards()];
    for (ShardLoad shard : summary.getShardLoads()) {
      if (shard.getShard() >= 0 && shard.getShard() < loads.length) {
        loads[shard.getShard()] = shard.getWrites();
      }
    }
    // The last plan's rules must be in force all through the window: committed ones from their effective time (the
    // master's clock at publishing, + T), those still in flight from T after the plan at the earliest.
    Long last = lastPlannedAt.value();
    long settled = Math.max(last == null ? Long.MIN_VALUE : last + settings.balancer().effectiveDelayMs(),
        rules.current().newestEffectiveTime());
    if (summary.getWindowStart() < settled) {
      return;
    }
    int streak = planner.overloaded(loads) ? (overloadedStreak.value() == null ? 1 : overloadedStreak.value() + 1)
        : 0;
    overloadedStreak.update(streak);
    if (streak < 2) {
      return;
    }
    overloadedStreak.update(0);
    lastPlannedAt.update(summary.getWindowEnd());
    RuleList list = rules.current();
    Map<Long, Long> writes = new HashMap<>();
    Map<Long, Double> shares = new HashMap<>();
    Map<Long, ShardTable> current = new HashMap<>();
    for (TenantShare tenant : summary.getTopTenants()) {
      writes.put(tenant.getTenantId(), tenant.getWrites());
      shares.put(tenant.getTenantId(), tenant.getShare());
      ShardTable table = list.tableFor(tenant.getTenantId(), Long.MAX_VALUE);
      if (table != null) {
        current.put(tenant.getTenantId(), table);
      }
    }
    int hottest = 0;
    for (int shard = 1; shard < loads.length; shard++) {
      hottest = loads[shard] > loads[hottest] ? shard : hottest;
    }
    Map<Long, ShardTable> planned = planner.plan(loads, writes, current);
    Map<Long, ShardTable> changed = planner.changes(planned, current);
    LOG.info("window {}: shard loads {}, capacity {}; {} large tenants planned, {} tables changed: {}",
        summary.getWindowStart(), Arrays.toString(loads), Math.round(planner.capacity(loads)), planned.size(),
        changed.size(), changed);
    for (Map.Entry<Long, ShardTable> entry : changed.entrySet()) {
      long tenant = entry.getKey();
      ShardTable table = entry.getValue();
      out.collect(RuleProposal.newBuilder()
          .setProposalId(UUID.randomUUID().toString())
          .setTenantId(tenant)
          .setObservedShare(shares.get(tenant))
          .setProposedOffsetSize(1)
          .setProposedTable(table.toAvro())
          .setWindowStart(summary.getWindowStart())
          .setWindowEnd(summary.getWindowEnd())
          .setReason(String.format(Locale.ROOT, "shard %d took %.0f writes, over its capacity of %.0f, in 2 windows"
              + " in a row; the max flow over %d large tenants gives this one %s", hottest, loads[hottest],
              planner.capacity(loads), planned.size(), table))
          .setProposedAt(System.currentTimeMillis())
          .build());
    }
  }

  @Override
  public void close() {
    if (rules != null) {
      rules.close();
    }
  }
}
