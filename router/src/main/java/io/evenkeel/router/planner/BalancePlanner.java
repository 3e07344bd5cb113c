package io.evenkeel.router.planner;

import io.evenkeel.router.rules.OffsetSize;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The decisions of ESDB's Algorithm 1: which tenants are hot and how many shards each needs.
 *
 * <p>The paper gives no thresholds; ours come from one setting. An average shard takes 1/N of all writes. A tenant
 * whose writes, spread over its L shards, would put more than {@code maxTenantShareOfShard} (α, default 0.25) of that
 * average on each of them is hot:
 *
 * <ul>
 *   <li>{@code CheckHotSpot(r)}: {@code r > α / N};
 *   <li>{@code ComputeOffsetSize(r)}: the smallest power of two L with {@code r / L <= α / N}, at most {@code
 *       maxOffsetSize} (default: the largest power of two <= N).
 * </ul>
 *
 * With α = 0.25 and N = 12, a tenant above 2.1% of all writes is hot; one at 10% gets L = 8 (1.25% per shard). A smaller
 * α balances shard loads more evenly but makes more tenants' queries fan out: the router demo prints both for a
 * sweep of α (docs/ROUTING.md, "Choosing α").
 */
public final class BalancePlanner {
  private final int numShards;
  private final double maxTenantShareOfShard;
  private final int maxOffsetSize;

  private BalancePlanner(int numShards, double maxTenantShareOfShard, int maxOffsetSize) {
    this.numShards = numShards;
    this.maxTenantShareOfShard = maxTenantShareOfShard;
    this.maxOffsetSize = maxOffsetSize;
  }

  public static Builder builder(int numShards) {
    return new Builder(numShards);
  }

  public int numShards() {
    return numShards;
  }

  /** The share of all writes above which a tenant is hot: α / N. */
  public double hotShareThreshold() {
    return maxTenantShareOfShard / numShards;
  }

  /** CheckHotSpot: does a tenant with this share of all writes overload one shard? */
  public boolean checkHotSpot(double share) {
    checkShare(share);
    return share > hotShareThreshold();
  }

  /** ComputeOffsetSize: the smallest power of two L that brings the tenant's per-shard share under the threshold. */
  public int computeOffsetSize(double share) {
    return smallestOffsetSize(share, hotShareThreshold());
  }

  /**
   * The L a widened tenant may shrink to (cool-down): the smallest power of two that keeps its share of each shard at
   * or under {@code band} × α / N. With {@code band} < 1 a tenant shrunk this way must grow its share by 1 / band
   * before it is hot again: the hysteresis that keeps a tenant near the threshold from flapping.
   */
  public int coolOffsetSize(double share, double band) {
    if (!(band > 0 && band <= 1)) {
      throw new IllegalArgumentException("the cool-down band must be in (0, 1]; got: " + band);
    }
    return smallestOffsetSize(share, band * hotShareThreshold());
  }

  private int smallestOffsetSize(double share, double perShardLimit) {
    checkShare(share);
    int size = 1;
    while (size < maxOffsetSize && share / size > perShardLimit) {
      size <<= 1;
    }
    return size;
  }

  /**
   * Initial rules for a cluster that already holds data: each tenant's L from its share of storage, one rule per L
   * (ascending) that names every tenant needing it, all effective at {@code effectiveTime}.
   */
  public List<Rule> initialRules(Map<Long, Long> storageByTenant, long effectiveTime) {
    double total = sum(storageByTenant);
    TreeMap<Integer, List<Long>> tenantsBySize = new TreeMap<>();
    if (total > 0) {
      storageByTenant.forEach((tenant, size) -> {
        int offsetSize = computeOffsetSize(size / total);
        if (offsetSize > 1) {
          tenantsBySize.computeIfAbsent(offsetSize, l -> new ArrayList<>()).add(tenant);
        }
      });
    }
    List<Rule> rules = new ArrayList<>();
    tenantsBySize.forEach((offsetSize, tenants) -> rules.add(
        Rule.grow(effectiveTime, offsetSize, tenants.stream().mapToLong(Long::longValue).toArray())));
    return rules;
  }

  /**
   * One round of Algorithm 1 over a window's write counts: every hot tenant whose new rows would get a larger L than
   * the rule list gives them at {@code asOf}, largest share first.
   */
  public List<OffsetSizeProposal> plan(Map<Long, Long> writesByTenant, RuleList rules, long asOf) {
    double total = sum(writesByTenant);
    List<OffsetSizeProposal> proposals = new ArrayList<>();
    if (total <= 0) {
      return proposals;
    }
    writesByTenant.forEach((tenant, writes) -> {
      double share = writes / total;
      if (!checkHotSpot(share)) {
        return;
      }
      int current = rules.offsetSizeFor(tenant, asOf);
      int proposed = computeOffsetSize(share);
      if (proposed > current) {
        proposals.add(new OffsetSizeProposal(tenant, share, current, proposed, String.format(Locale.ROOT,
            "share %.4f > hot threshold %.4f (alpha %.2f / %d shards); L %d -> %d puts %.4f on each shard",
            share, hotShareThreshold(), maxTenantShareOfShard, numShards, current, proposed, share / proposed)));
      }
    });
    proposals.sort((a, b) -> Double.compare(b.share(), a.share()));
    return proposals;
  }

  private static double sum(Map<Long, Long> counts) {
    double total = 0;
    for (long value : counts.values()) {
      if (value < 0) {
        throw new IllegalArgumentException("counts must be >= 0; got: " + value);
      }
      total += value;
    }
    return total;
  }

  private static void checkShare(double share) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("a share must be in [0, 1]; got: " + share);
    }
  }

  /** Defaults from the shard count; {@link #build} validates. */
  public static final class Builder {
    private final int numShards;
    private double maxTenantShareOfShard = 0.25;
    private int maxOffsetSize;

    private Builder(int numShards) {
      this.numShards = numShards;
      this.maxOffsetSize = numShards < 1 ? 1 : OffsetSize.max(numShards);
    }

    /** α: the most of an average shard's load one tenant may put on each of its shards; in (0, 1]. */
    public Builder maxTenantShareOfShard(double alpha) {
      this.maxTenantShareOfShard = alpha;
      return this;
    }

    /** The largest L the planner proposes; a power of two in [1, N]. */
    public Builder maxOffsetSize(int maxOffsetSize) {
      this.maxOffsetSize = maxOffsetSize;
      return this;
    }

    public BalancePlanner build() {
      if (numShards < 1) {
        throw new IllegalArgumentException("the number of shards must be >= 1; got: " + numShards);
      }
      if (!(maxTenantShareOfShard > 0 && maxTenantShareOfShard <= 1)) {
        throw new IllegalArgumentException("maxTenantShareOfShard must be in (0, 1]; got: " + maxTenantShareOfShard);
      }
      OffsetSize.check("maxOffsetSize", maxOffsetSize, numShards);
      return new BalancePlanner(numShards, maxTenantShareOfShard, maxOffsetSize);
    }
  }
}
