package io.evenkeel.router.rules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The append-only list of routing rules, ordered by effective time and indexed by tenant. Immutable: {@link #append}
 * returns a new list, so a reader never sees a half-applied one.
 *
 * <p>A row of tenant k created at tc uses, among the rules with {@code t <= tc} that name k, the largest L (ESDB); a
 * cool-down rule resets L to its own value for rows created from its t on, and a table rule (LogStore's routing)
 * routes them by its weighted table instead. Tenants no rule names use L = 1.
 */
public final class RuleList {
  private final int numShards;
  private final List<Rule> rules;
  private final Map<Long, TenantHistory> byTenant;

  private RuleList(int numShards, List<Rule> rules, Map<Long, TenantHistory> byTenant) {
    this.numShards = numShards;
    this.rules = rules;
    this.byTenant = byTenant;
  }

  public static RuleList empty(int numShards) {
    if (numShards < 1) {
      throw new IllegalArgumentException("the number of shards must be >= 1; got: " + numShards);
    }
    return new RuleList(numShards, List.of(), Map.of());
  }

  /** A list holding {@code rules} in order; the same checks as appending them one by one. */
  public static RuleList of(int numShards, List<Rule> rules) {
    Builder builder = new Builder(empty(numShards));
    rules.forEach(builder::add);
    return builder.build();
  }

  /** A new list with {@code rule} at the end. Copies the index: meant for the rare rule change, not bulk loading. */
  public RuleList append(Rule rule) {
    return new Builder(this).add(rule).build();
  }

  /** A new list with {@code more} at the end, in order, building the index once. */
  public RuleList appendAll(List<Rule> more) {
    Builder builder = new Builder(this);
    more.forEach(builder::add);
    return builder.build();
  }

  public int numShards() {
    return numShards;
  }

  /** The rules in effective-time order (unmodifiable). */
  public List<Rule> rules() {
    return rules;
  }

  public int size() {
    return rules.size();
  }

  /** Effective time of the newest rule, or {@code Long.MIN_VALUE} when there is none. */
  public long newestEffectiveTime() {
    return rules.isEmpty() ? Long.MIN_VALUE : rules.get(rules.size() - 1).effectiveTime();
  }

  /** L for a row of {@code tenant} created at {@code createdTime}. */
  public int offsetSizeFor(long tenant, long createdTime) {
    TenantHistory history = byTenant.get(tenant);
    return history == null ? 1 : history.offsetSizeAt(createdTime);
  }

  /** The table that routes a row of {@code tenant} created at {@code createdTime}, or null when its L does. */
  public ShardTable tableFor(long tenant, long createdTime) {
    TenantHistory history = byTenant.get(tenant);
    return history == null ? null : history.tableAt(createdTime);
  }

  /** How many shards the rows of {@code tenant} created at {@code createdTime} spread over: its table's, or L. */
  public int spreadFor(long tenant, long createdTime) {
    ShardTable table = tableFor(tenant, createdTime);
    return table != null ? table.size() : offsetSizeFor(tenant, createdTime);
  }

  /**
   * The largest L of the rows of {@code tenant} created in [{@code fromTime}, {@code toTime}] and routed to
   * consecutive shards; 0 when tables routed all of them.
   */
  public int maxOffsetSizeBetween(long tenant, long fromTime, long toTime) {
    checkInterval(fromTime, toTime);
    TenantHistory history = byTenant.get(tenant);
    return history == null ? 1 : history.maxOffsetSizeBetween(fromTime, toTime);
  }

  /** The tables that routed rows of {@code tenant} created in [{@code fromTime}, {@code toTime}]. */
  public List<ShardTable> tablesBetween(long tenant, long fromTime, long toTime) {
    checkInterval(fromTime, toTime);
    TenantHistory history = byTenant.get(tenant);
    return history == null ? List.of() : history.tablesBetween(fromTime, toTime);
  }

  private static void checkInterval(long fromTime, long toTime) {
    if (fromTime > toTime) {
      throw new IllegalArgumentException("time interval is empty: from " + fromTime + " > to " + toTime);
    }
  }

  /** Every tenant some rule names (unmodifiable). */
  public Set<Long> tenants() {
    return byTenant.keySet();
  }

  /** The most L any row of {@code tenant} can have, whenever it was created. */
  public int maxOffsetSize(long tenant) {
    return maxOffsetSizeBetween(tenant, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  @Override
  public String toString() {
    return "RuleList(numShards=" + numShards + ", rules=" + rules.size() + ", tenants=" + byTenant.size() + ")";
  }

  /** Validates and appends rules in bulk, building the index once. */
  public static Builder builder(int numShards) {
    return new Builder(empty(numShards));
  }

  /** Appends to a copy of a list; {@link #build} freezes it. */
  public static final class Builder {
    private final int numShards;
    private final List<Rule> rules;
    private final Map<Long, TenantHistory> byTenant;

    private Builder(RuleList base) {
      this.numShards = base.numShards;
      this.rules = new ArrayList<>(base.rules);
      this.byTenant = new HashMap<>(base.byTenant);
    }

    public Builder add(Rule rule) {
      OffsetSize.check("offset size L", rule.offsetSize(), numShards);
      if (rule.table() != null && Arrays.stream(rule.table().shards()).anyMatch(shard -> shard >= numShards)) {
        throw new IllegalArgumentException("a table rule names a shard outside [0, " + numShards + "): " + rule);
      }
      long newest = rules.isEmpty() ? Long.MIN_VALUE : rules.get(rules.size() - 1).effectiveTime();
      if (rule.effectiveTime() < newest) {
        throw new IllegalArgumentException("the rule list is append-only: a rule effective at " + rule.effectiveTime()
            + " is older than the newest rule, effective at " + newest);
      }
      rules.add(rule);
      for (long tenant : rule.tenants()) {
        byTenant.put(tenant, byTenant.getOrDefault(tenant, TenantHistory.EMPTY).then(rule));
      }
      return this;
    }

    public RuleList build() {
      return new RuleList(numShards, Collections.unmodifiableList(new ArrayList<>(rules)), Map.copyOf(byTenant));
    }
  }
}
