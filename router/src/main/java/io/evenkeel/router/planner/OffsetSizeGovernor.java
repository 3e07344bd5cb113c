package io.evenkeel.router.planner;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.RuleList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a tenant's L grows and when it shrinks again, window after window: ESDB's CheckHotSpot and ComputeOffsetSize
 * ({@link BalancePlanner}), with the damping the paper leaves out.
 *
 * <ul>
 *   <li><b>Widen</b> a tenant that needed a larger L than its new rows get in {@code hotWindows} windows in a row,
 *       when the change is worth it: the hottest of the shards it touches (the tenant's old and new ones, with the
 *       window's shard loads) must carry at least {@code minGain} less after it.
 *   <li><b>Narrow</b> (cool-down) a widened tenant once a smaller L has kept its share of each shard within the
 *       hysteresis band ({@code coolBand} × α / N, see {@link BalancePlanner#coolOffsetSize}) for {@code coolDownMs};
 *       the new L is the smallest that keeps the highest share of that spell within the band, so the tenant must
 *       grow by 1 / coolBand before it is hot again.
 *   <li><b>Rest</b>: no tenant is proposed again within {@code restMs} of its last proposal.
 * </ul>
 *
 * Tenants routed by a weighted table (LogStore's routing) are left alone.
 */
public final class OffsetSizeGovernor {
  private static final Logger LOG = LoggerFactory.getLogger(OffsetSizeGovernor.class);
  private final BalancePlanner planner;
  private final ShardFormula formula;
  private final Settings settings;

  /**
   * How the governor damps its proposals.
   *
   * @param hotWindows windows in a row a tenant must need more shards before it is widened (at least 1)
   * @param restMs the least time between two proposals for one tenant
   * @param coolDownMs how long a smaller L must have done before a tenant is narrowed
   * @param coolBand the hysteresis band, in (0, 1]: a tenant is narrowed only to an L that keeps its share of each
   *     shard at or under this fraction of the hot threshold
   * @param minGain the least relative drop of the hottest touched shard's load that makes a widening worth it, in
   *     [0, 1)
   */
  public record Settings(int hotWindows, long restMs, long coolDownMs, double coolBand, double minGain) {
    /** Two hot windows, a minute's rest, five cool minutes, half the threshold, 5% less on the hottest shard. */
    public static final Settings DEFAULT = new Settings(2, 60_000, 300_000, 0.5, 0.05);

    public Settings {
      if (hotWindows < 1 || restMs < 0 || coolDownMs < 0) {
        throw new IllegalArgumentException("hotWindows must be >= 1 and times >= 0; got: " + hotWindows + ", "
            + restMs + ", " + coolDownMs);
      }
      if (!(coolBand > 0 && coolBand <= 1) || !(minGain >= 0 && minGain < 1)) {
        throw new IllegalArgumentException("coolBand must be in (0, 1] and minGain in [0, 1); got: " + coolBand
            + ", " + minGain);
      }
    }
  }

  public OffsetSizeGovernor(BalancePlanner planner, ShardFormula formula, Settings settings) {
    if (planner.numShards() != formula.numShards()) {
      throw new IllegalArgumentException("the planner has " + planner.numShards() + " shards, the formula "
          + formula.numShards());
    }
    this.planner = planner;
    this.formula = formula;
    this.settings = settings;
  }

  /**
   * One window's proposals, largest share first: widenings of hot tenants and cool-downs of widened ones that have
   * stayed cool. Updates {@code trends} (each tenant's memory; tenants with nothing to remember are removed), and
   * counts each widening in the window's shard loads before judging the next.
   *
   * @param rules the committed rules; a tenant's current L is the one its new rows get
   */
  public List<OffsetSizeProposal> decide(WindowLoad window, RuleList rules, Map<Long, TenantTrend> trends) {
    double[] load = shardShares(window);
    // The tenants there is something to decide for: hot ones, widened ones, and those with a memory.
    Set<Long> tenants = new HashSet<>(trends.keySet());
    window.tenantWrites().keySet().stream().filter(t -> planner.checkHotSpot(window.shareOf(t)))
        .forEach(tenants::add);
    for (long tenant : rules.tenants()) {
      if (rules.offsetSizeFor(tenant, Long.MAX_VALUE) > 1) {
        tenants.add(tenant);
      }
    }
    List<Long> byShare = new ArrayList<>(tenants);
    byShare.sort(Comparator.comparingDouble(window::shareOf).reversed().thenComparing(Comparator.naturalOrder()));
    List<OffsetSizeProposal> proposals = new ArrayList<>();
    for (long tenant : byShare) {
      if (rules.tableFor(tenant, Long.MAX_VALUE) != null) {
        trends.remove(tenant);
        continue;
      }
      TenantTrend trend = trends.computeIfAbsent(tenant, t -> new TenantTrend());
      OffsetSizeProposal proposal = decide(tenant, window, rules.offsetSizeFor(tenant, Long.MAX_VALUE), trend, load);
      if (proposal != null) {
        proposals.add(proposal);
        trend.lastProposedAt = window.end();
      }
      if (trend.idle(window.end(), settings.restMs)) {
        trends.remove(tenant);
      }
    }
    return proposals;
  }

  private OffsetSizeProposal decide(long tenant, WindowLoad window, int current, TenantTrend trend, double[] load) {
    double share = window.shareOf(tenant);
    boolean rested = trend.lastProposedAt == TenantTrend.NEVER
        || window.end() - trend.lastProposedAt >= settings.restMs;
    // An unlisted tenant's share is only bounded from above: never a reason to widen it.
    int needed = window.lists(tenant) ? planner.computeOffsetSize(share) : 1;
    if (needed > current) {
      trend.hotWindows++;
      trend.endCoolSpell();
      return trend.hotWindows >= settings.hotWindows && rested ? widen(tenant, share, current, needed, trend, load)
          : null;
    }
    trend.hotWindows = 0;
    int narrowed = planner.coolOffsetSize(share, settings.coolBand);
    if (narrowed >= current || trend.coolFrom != 0 && trend.coolFrom != current) {
      trend.endCoolSpell();
      return null;
    }
    if (trend.coolSince == TenantTrend.NEVER) {
      trend.coolSince = window.start();
      trend.coolFrom = current;
    }
    trend.coolPeakShare = Math.max(trend.coolPeakShare, share);
    long coolFor = window.end() - trend.coolSince;
    double peak = trend.coolPeakShare;
    narrowed = planner.coolOffsetSize(peak, settings.coolBand);
    if (coolFor < settings.coolDownMs || !rested || narrowed >= current) {
      return null;
    }
    // The spell goes on until the rule list gives the tenant another L: an aborted proposal is made again after
    // the rest period.
    return new OffsetSizeProposal(tenant, share, current, narrowed, String.format(Locale.ROOT,
        "cool for %d ms: share at most %.4f, so L %d puts at most %.4f on each shard, within %.2f of the hot"
            + " threshold %.4f; L %d -> %d", coolFor, peak, narrowed, peak / narrowed, settings.coolBand,
        planner.hotShareThreshold(), current, narrowed));
  }

  /**
   * A widening when it pays: the hottest of the shards it touches must carry at least the minimum gain less after
   * it (always, when the monitor counted no shard loads). Counted in {@code load} when proposed.
   */
  private OffsetSizeProposal widen(long tenant, double share, int current, int needed, TenantTrend trend,
      double[] load) {
    double before = hottest(load, tenant, needed);
    double[] after = load.clone();
    move(after, tenant, share, current, needed);
    double gain = before <= 0 ? 1 : (before - hottest(after, tenant, needed)) / before;
    if (gain < settings.minGain) {
      LOG.info("tenant {} needs L {} (share {}), not proposed: the hottest shard it would touch gains {} < {}",
          tenant, needed, share, gain, settings.minGain);
      return null;
    }
    System.arraycopy(after, 0, load, 0, load.length);
    return new OffsetSizeProposal(tenant, share, current, needed, String.format(Locale.ROOT,
        "share %.4f > %.4f in %d windows in a row; L %d -> %d puts %.4f on each shard; the hottest shard it"
            + " touches %.4f -> %.4f of all writes (-%.0f%%)", share, planner.hotShareThreshold(),
        trend.hotWindows, current, needed, share / needed, before, before * (1 - gain), 100 * gain));
  }

  /** Each shard's share of the window's writes. */
  private double[] shardShares(WindowLoad window) {
    double[] shares = new double[formula.numShards()];
    long[] writes = window.shardWrites();
    for (int shard = 0; shard < Math.min(writes.length, shares.length); shard++) {
      shares[shard] = window.totalWrites() <= 0 ? 0 : writes[shard] / (double) window.totalWrites();
    }
    return shares;
  }

  /** The highest load among the tenant's first {@code offsetSize} shards (which hold all its smaller ranges). */
  private double hottest(double[] load, long tenant, int offsetSize) {
    double max = 0;
    int base = formula.baseShard(tenant);
    for (int i = 0; i < offsetSize; i++) {
      max = Math.max(max, load[(base + i) % load.length]);
    }
    return max;
  }

  /** Moves the tenant's share from its first {@code from} shards, evenly, to its first {@code to}. */
  private void move(double[] load, long tenant, double share, int from, int to) {
    int base = formula.baseShard(tenant);
    for (int i = 0; i < from; i++) {
      int shard = (base + i) % load.length;
      load[shard] = Math.max(0, load[shard] - share / from);
    }
    for (int i = 0; i < to; i++) {
      load[(base + i) % load.length] += share / to;
    }
  }
}
