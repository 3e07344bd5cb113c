package io.evenkeel.router.protocol;

import io.evenkeel.router.rules.RuleList;
import java.util.Arrays;

/**
 * What a proposer asks for: give {@code tenants} the offset size L. The master adds the effective time.
 *
 * @param tenants sorted and distinct (copied in)
 * @param coolDown as {@link io.evenkeel.router.rules.Rule#coolDown}: exactly L for new rows, even a smaller one
 * @param reason why, for the audit trail (the planner's reason, for example)
 */
public record RuleRequest(long[] tenants, int offsetSize, boolean coolDown, String reason) {
  public RuleRequest {
    if (offsetSize < 1 || Integer.bitCount(offsetSize) != 1) {
      throw new IllegalArgumentException("offset size L must be a power of two; got: " + offsetSize);
    }
    if (tenants == null || tenants.length == 0) {
      throw new IllegalArgumentException("a rule request must name at least one tenant");
    }
    tenants = Arrays.stream(tenants).sorted().distinct().toArray();
    reason = reason == null ? "" : reason;
  }

  /** Grow the tenants' L (never shrink it). */
  public static RuleRequest grow(int offsetSize, long... tenants) {
    return new RuleRequest(tenants, offsetSize, false, "");
  }

  /** Set the tenants' L for new rows, even to a smaller one. */
  public static RuleRequest coolDown(int offsetSize, long... tenants) {
    return new RuleRequest(tenants, offsetSize, true, "");
  }

  public RuleRequest because(String why) {
    return new RuleRequest(tenants, offsetSize, coolDown, why);
  }

  @Override
  public long[] tenants() {
    return tenants.clone();
  }

  /** Whether a rule with this L would change nothing for {@code tenant}'s new rows under {@code list}. */
  static boolean alreadyAt(RuleList list, long tenant, int offsetSize, boolean coolDown) {
    int current = list.offsetSizeFor(tenant, Long.MAX_VALUE);
    return coolDown ? current == offsetSize : current >= offsetSize;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RuleRequest r && r.offsetSize == offsetSize && r.coolDown == coolDown
        && Arrays.equals(r.tenants, tenants) && r.reason.equals(reason);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(tenants) * 31 + offsetSize * 7 + (coolDown ? 1 : 0) + reason.hashCode();
  }

  @Override
  public String toString() {
    String names = tenants.length <= 8 ? Arrays.toString(tenants) : tenants.length + " tenants";
    return "RuleRequest(L=" + offsetSize + (coolDown ? ", cool-down" : "") + ", " + names + ")";
  }
}
