package io.evenkeel.router.protocol;

import io.evenkeel.router.rules.Rule;

/**
 * How a proposal ended.
 *
 * @param proposal the round's znode name ({@code p-0000000042}); null when it was skipped before reaching ZooKeeper
 * @param rule the committed rule, with its effective time; null unless committed
 * @param ruleIndex the rule's index in the committed list; -1 unless committed
 * @param reason why it ended so, in words
 */
public record RoundOutcome(Status status, String proposal, Rule rule, long ruleIndex, String reason) {
  public enum Status {
    /** In the committed list: rows created at or after {@code rule().effectiveTime()} use the new L. */
    COMMITTED,
    /** A participant rejected or did not answer in time, or the rule would have changed nothing; nobody applies it. */
    ABORTED,
    /** Not proposed: every tenant is already at L or in another round, or the proposer's rate limit applies. */
    SKIPPED
  }

  static RoundOutcome skipped(String reason) {
    return new RoundOutcome(Status.SKIPPED, null, null, -1, reason);
  }

  public boolean isCommitted() {
    return status == Status.COMMITTED;
  }

  @Override
  public String toString() {
    return switch (status) {
      case COMMITTED -> "COMMITTED(" + proposal + ": " + rule + " at index " + ruleIndex + ")";
      case ABORTED -> "ABORTED(" + proposal + ": " + reason + ")";
      case SKIPPED -> "SKIPPED(" + reason + ")";
    };
  }
}
