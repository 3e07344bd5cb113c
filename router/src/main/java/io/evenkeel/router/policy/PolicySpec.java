package io.evenkeel.router.policy;

/**
 * A routing policy as users write it in flags and settings: {@code hashing}, {@code double:L} (every tenant over L
 * shards) or {@code dynamic} (each tenant's L from the committed rule list). The one parser of that text.
 */
public record PolicySpec(Kind kind, int offsetSize) {
  /** The three policies. */
  public enum Kind { HASHING, DOUBLE_HASHING, DYNAMIC }

  private static final String FORMS = "hashing, double:L (L a whole number >= 1) or dynamic";

  public PolicySpec {
    if (kind == Kind.DOUBLE_HASHING ? offsetSize < 1 : offsetSize != 1) {
      throw new IllegalArgumentException("a routing policy is " + FORMS + "; got: " + kind + " with L=" + offsetSize);
    }
  }

  /** Parses {@code hashing}, {@code double:L} or {@code dynamic}; the error names the three forms. */
  public static PolicySpec parse(String text) {
    String spec = text == null ? "" : text.strip();
    if (spec.equals("hashing")) {
      return new PolicySpec(Kind.HASHING, 1);
    }
    if (spec.equals("dynamic")) {
      return new PolicySpec(Kind.DYNAMIC, 1);
    }
    if (spec.matches("double:\\d{1,9}")) {
      int offsetSize = Integer.parseInt(spec.substring("double:".length()));
      if (offsetSize >= 1) {
        return new PolicySpec(Kind.DOUBLE_HASHING, offsetSize);
      }
    }
    throw new IllegalArgumentException("the routing policy is " + FORMS + "; got: '" + text + "'");
  }

  public boolean dynamic() {
    return kind == Kind.DYNAMIC;
  }

  /** The policy of a fixed spec (hashing or double:L) over {@code numShards} shards. */
  public RoutingPolicy fixedPolicy(int numShards) {
    return switch (kind) {
      case HASHING -> RoutingPolicy.hashing(numShards);
      case DOUBLE_HASHING -> RoutingPolicy.doubleHashing(numShards, offsetSize);
      case DYNAMIC -> throw new IllegalStateException("the dynamic policy routes by a rule list, not a fixed L");
    };
  }

  /** The text {@link #parse} reads. */
  @Override
  public String toString() {
    return switch (kind) {
      case HASHING -> "hashing";
      case DOUBLE_HASHING -> "double:" + offsetSize;
      case DYNAMIC -> "dynamic";
    };
  }
}
