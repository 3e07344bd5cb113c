package io.evenkeel.router.policy;

import io.evenkeel.router.rules.RuleList;
import java.io.Serializable;
import java.util.List;

/**
 * A routing policy as users write it in flags and settings: {@code hashing}, {@code double:L} (every tenant over L
 * shards), {@code dynamic} (each tenant's L from the committed rule list) or {@code logstore} (LogStore's max-flow
 * tables, from the committed rule list). The one parser of that text; {@link PolicyOptions} is the flag that takes
 * it. Serializable: a Flink job ships it to its operators.
 */
public record PolicySpec(Kind kind, int offsetSize) implements Serializable {
  /** The four policies. */
  public enum Kind { HASHING, DOUBLE_HASHING, DYNAMIC, LOGSTORE }

  private static final String FORMS = "hashing, double:L (L a whole number >= 1), dynamic or logstore";

  public PolicySpec {
    if (kind == Kind.DOUBLE_HASHING ? offsetSize < 1 : offsetSize != 1) {
      throw new IllegalArgumentException("a routing policy is " + FORMS + "; got: " + kind + " with L=" + offsetSize);
    }
  }

  /** Parses {@code hashing}, {@code double:L}, {@code dynamic} or {@code logstore}; the error names the forms. */
  public static PolicySpec parse(String text) {
    String spec = text == null ? "" : text.strip();
    if (spec.equals("hashing")) {
      return new PolicySpec(Kind.HASHING, 1);
    }
    if (spec.equals("dynamic")) {
      return new PolicySpec(Kind.DYNAMIC, 1);
    }
    if (spec.equals("logstore")) {
      return new PolicySpec(Kind.LOGSTORE, 1);
    }
    if (spec.matches("double:\\d{1,9}")) {
      int offsetSize = Integer.parseInt(spec.substring("double:".length()));
      if (offsetSize >= 1) {
        return new PolicySpec(Kind.DOUBLE_HASHING, offsetSize);
      }
    }
    throw new IllegalArgumentException("the routing policy is " + FORMS + "; got: '" + text + "'");
  }

  /** Whether rows are routed by the committed rule list (dynamic and logstore), which the protocol agrees. */
  public boolean byRuleList() {
    return kind == Kind.DYNAMIC || kind == Kind.LOGSTORE;
  }

  /** The policy of a fixed spec (hashing or double:L) over {@code numShards} shards. */
  public RoutingPolicy fixedPolicy(int numShards) {
    return switch (kind) {
      case HASHING -> RoutingPolicy.hashing(numShards);
      case DOUBLE_HASHING -> RoutingPolicy.doubleHashing(numShards, offsetSize);
      case DYNAMIC, LOGSTORE -> throw new IllegalStateException("the " + this + " policy routes by a rule list, not"
          + " a fixed L");
    };
  }

  /** The policy of a rule-list spec (dynamic or logstore) over {@code rules}. */
  public RoutingPolicy policy(RuleList rules) {
    return switch (kind) {
      case DYNAMIC -> RoutingPolicy.dynamic(rules);
      case LOGSTORE -> RoutingPolicy.logStore(rules);
      case HASHING, DOUBLE_HASHING -> fixedPolicy(rules.numShards());
    };
  }

  /** This policy as the {@code --policy} flag of another process. */
  public List<String> toArgs() {
    return List.of(PolicyOptions.POLICY, toString());
  }

  /** The text {@link #parse} reads. */
  @Override
  public String toString() {
    return switch (kind) {
      case HASHING -> "hashing";
      case DOUBLE_HASHING -> "double:" + offsetSize;
      case DYNAMIC -> "dynamic";
      case LOGSTORE -> "logstore";
    };
  }
}
