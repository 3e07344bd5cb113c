package io.evenkeel.router.rules;

import io.evenkeel.schemas.RoutingRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One routing rule: rows created by {@code tenants} at or after {@code effectiveTime} spread over {@code offsetSize}
 * consecutive shards, or, in a table rule (LogStore's routing), over the shards of a weighted {@link ShardTable}.
 *
 * @param effectiveTime epoch ms; the rule applies to rows with {@code createdTime >= effectiveTime}
 * @param offsetSize L, a power of two (checked against the shard count by {@link RuleList})
 * @param tenants the tenants it names, sorted and distinct (copied in)
 * @param coolDown false: L only grows, the largest L in force wins (ESDB); true: rows created from {@code
 *     effectiveTime} on use exactly this L, even a smaller one, while queries still cover the older, larger range
 * @param table null, or the shards and weights of the named tenants' new rows, instead of L consecutive shards (then
 *     {@code offsetSize} is 1 and {@code coolDown} true: a table replaces what was in force, it does not grow it)
 */
public record Rule(long effectiveTime, int offsetSize, long[] tenants, boolean coolDown, ShardTable table) {
  public Rule {
    if (offsetSize < 1 || Integer.bitCount(offsetSize) != 1) {
      throw new IllegalArgumentException("offset size L must be a power of two; got: " + offsetSize);
    }
    if (table != null && (offsetSize != 1 || !coolDown)) {
      throw new IllegalArgumentException("a table rule has L = 1 and replaces what was in force (cool-down); got L="
          + offsetSize + ", coolDown=" + coolDown);
    }
    if (tenants == null || tenants.length == 0) {
      throw new IllegalArgumentException("a rule must name at least one tenant");
    }
    tenants = Arrays.stream(tenants).sorted().distinct().toArray();
  }

  /** A rule of consecutive shards: L grows, or with {@code coolDown} is set. */
  public Rule(long effectiveTime, int offsetSize, long[] tenants, boolean coolDown) {
    this(effectiveTime, offsetSize, tenants, coolDown, null);
  }

  /** A rule that grows (never shrinks) the named tenants' L. */
  public static Rule grow(long effectiveTime, int offsetSize, long... tenants) {
    return new Rule(effectiveTime, offsetSize, tenants, false);
  }

  /** A rule that sets the named tenants' L for rows created from {@code effectiveTime} on, even to a smaller one. */
  public static Rule coolDown(long effectiveTime, int offsetSize, long... tenants) {
    return new Rule(effectiveTime, offsetSize, tenants, true);
  }

  /** A rule that routes the named tenants' rows created from {@code effectiveTime} on by {@code table}. */
  public static Rule table(long effectiveTime, ShardTable table, long... tenants) {
    return new Rule(effectiveTime, 1, tenants, true, table);
  }

  public static Rule fromAvro(RoutingRule rule) {
    return new Rule(
        rule.getEffectiveTime(),
        rule.getOffsetSize(),
        rule.getTenants().stream().mapToLong(Long::longValue).toArray(),
        rule.getCoolDown(),
        rule.getTable() == null ? null : ShardTable.fromAvro(rule.getTable()));
  }

  public RoutingRule toAvro() {
    List<Long> names = new ArrayList<>(tenants.length);
    for (long tenant : tenants) {
      names.add(tenant);
    }
    return new RoutingRule(effectiveTime, offsetSize, names, coolDown, table == null ? null : table.toAvro());
  }

  /** The tenants, as a fresh array (the record keeps its own copy). */
  @Override
  public long[] tenants() {
    return tenants.clone();
  }

  public boolean names(long tenant) {
    return Arrays.binarySearch(tenants, tenant) >= 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Rule r
        && r.effectiveTime == effectiveTime
        && r.offsetSize == offsetSize
        && r.coolDown == coolDown
        && Arrays.equals(r.tenants, tenants)
        && Objects.equals(r.table, table);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(effectiveTime) * 31 + offsetSize * 7 + Arrays.hashCode(tenants) + (coolDown ? 1 : 0)
        + Objects.hashCode(table) * 17;
  }

  @Override
  public String toString() {
    String names = tenants.length <= 8 ? Arrays.toString(tenants) : tenants.length + " tenants";
    String shards = table != null ? "table " + table : "L=" + offsetSize + (coolDown ? ", cool-down" : "");
    return "Rule(t=" + effectiveTime + ", " + shards + ", " + names + ")";
  }
}
