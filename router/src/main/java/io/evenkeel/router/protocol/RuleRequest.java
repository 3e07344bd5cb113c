package io.evenkeel.router.protocol;

import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.RuleRound;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a proposer asks for: give {@code tenants} the offset size L, or a weighted table of shards. The master adds
 * the effective time.
 *
 * @param tenants sorted and distinct (copied in)
 * @param coolDown as {@link Rule#coolDown}: exactly L for new rows, even a smaller one
 * @param reason why, for the audit trail (the planner's reason, for example)
 * @param table as {@link Rule#table}: null, or the tenants' new rows go to its shards by weight (L 1, coolDown)
 */
public record RuleRequest(long[] tenants, int offsetSize, boolean coolDown, String reason, ShardTable table) {
  public RuleRequest {
    if (offsetSize < 1 || Integer.bitCount(offsetSize) != 1) {
      throw new IllegalArgumentException("offset size L must be a power of two; got: " + offsetSize);
    }
    if (table != null && (offsetSize != 1 || !coolDown)) {
      throw new IllegalArgumentException("a table request has L = 1 and cool-down; got L=" + offsetSize);
    }
    if (tenants == null || tenants.length == 0) {
      throw new IllegalArgumentException("a rule request must name at least one tenant");
    }
    tenants = Arrays.stream(tenants).sorted().distinct().toArray();
    reason = reason == null ? "" : reason;
  }

  /** A request of consecutive shards. */
  public RuleRequest(long[] tenants, int offsetSize, boolean coolDown, String reason) {
    this(tenants, offsetSize, coolDown, reason, null);
  }

  /** Grow the tenants' L (never shrink it). */
  public static RuleRequest grow(int offsetSize, long... tenants) {
    return new RuleRequest(tenants, offsetSize, false, "");
  }

  /** Set the tenants' L for new rows, even to a smaller one. */
  public static RuleRequest coolDown(int offsetSize, long... tenants) {
    return new RuleRequest(tenants, offsetSize, true, "");
  }

  /** Route the tenants' new rows by {@code table} (LogStore's routing). */
  public static RuleRequest table(ShardTable table, long... tenants) {
    return new RuleRequest(tenants, 1, true, "", table);
  }

  public RuleRequest because(String why) {
    return new RuleRequest(tenants, offsetSize, coolDown, why, table);
  }

  @Override
  public long[] tenants() {
    return tenants.clone();
  }

  /** Whether a rule with this L or table would change nothing for {@code tenant}'s new rows under {@code list}. */
  static boolean alreadyAt(RuleList list, long tenant, int offsetSize, boolean coolDown, ShardTable table) {
    ShardTable current = list.tableFor(tenant, Long.MAX_VALUE);
    if (table != null || current != null) {
      return table != null && table.equals(current);
    }
    int size = list.offsetSizeFor(tenant, Long.MAX_VALUE);
    return coolDown ? size == offsetSize : size >= offsetSize;
  }

  /** What {@code tenant}'s new rows get now, for a skipped request's reason. */
  static String currentPlacement(RuleList list, long tenant) {
    ShardTable current = list.tableFor(tenant, Long.MAX_VALUE);
    return current != null ? "table " + current : "L=" + list.offsetSizeFor(tenant, Long.MAX_VALUE);
  }

  /** The rule a round asks for, effective at its effective time (which the master has set). */
  static Rule rule(RuleRound round) {
    return new Rule(round.getEffectiveTime(), round.getOffsetSize(),
        round.getTenants().stream().mapToLong(Long::longValue).toArray(), round.getCoolDown(),
        round.getTable() == null ? null : ShardTable.fromAvro(round.getTable()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleRequest r && r.offsetSize == offsetSize && r.coolDown == coolDown
        && Arrays.equals(r.tenants, tenants) && r.reason.equals(reason) && Objects.equals(r.table, table);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(tenants) * 31 + offsetSize * 7 + (coolDown ? 1 : 0) + reason.hashCode()
        + Objects.hashCode(table) * 17;
  }

  @Override
  public String toString() {
    String names = tenants.length <= 8 ? Arrays.toString(tenants) : tenants.length + " tenants";
    String shards = table != null ? "table " + table : "L=" + offsetSize + (coolDown ? ", cool-down" : "");
    return "RuleRequest(" + shards + ", " + names + ")";
  }
}
