package io.evenkeel.ingest.monitor;

import io.evenkeel.schemas.ShardLoad;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.streaming.api.functions.windowing.ProcessAllWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * One window's totals: each tenant's share of all writes (the top tenants, and every tenant above {@code
 * reportShare}), and every shard's load.
 */
public final class WindowSummarizer extends ProcessAllWindowFunction<WindowCount, WindowSummary, TimeWindow> {
  private final int topTenants;
  private final double reportShare;

  public WindowSummarizer(int topTenants, double reportShare) {
    this.topTenants = topTenants;
    this.reportShare = reportShare;
  }

  @Override
  public void process(Context context, Iterable<WindowCount> counts, Collector<WindowSummary> out) {
    List<WindowCount> tenants = new ArrayList<>();
    List<ShardLoad> shards = new ArrayList<>();
    long total = 0;
    for (WindowCount count : counts) {
      if (count.kind == WindowCount.TENANT) {
        tenants.add(count);
        total += count.count;
      } else {
        shards.add(new ShardLoad((int) count.key, count.count));
      }
    }
    tenants.sort(Comparator.comparingLong((WindowCount c) -> c.count).reversed());
    List<TenantShare> top = new ArrayList<>();
    for (int i = 0; i < tenants.size(); i++) {
      double share = tenants.get(i).count / (double) total;
      if (i >= topTenants && share <= reportShare) {
        break;
      }
      top.add(new TenantShare(tenants.get(i).key, tenants.get(i).count, share));
    }
    shards.sort(Comparator.comparingInt(ShardLoad::getShard));
    out.collect(WindowSummary.newBuilder()
        .setWindowStart(context.window().getStart())
        .setWindowEnd(context.window().getEnd())
        .setTotalWrites(total)
        .setActiveTenants(tenants.size())
        .setTopTenants(top)
        .setShardLoads(shards)
        .build());
  }
}
