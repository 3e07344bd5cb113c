package io.evenkeel.router.protocol;

import io.evenkeel.router.rules.RuleList;

/**
 * Told when the committed rule list grows. Calls come one at a time, in commit order, from the client's own thread;
 * by the time a call runs, {@link RuleListClient#current()} may already return a longer list.
 */
@FunctionalInterface
public interface RuleListListener {
  /** {@code list} holds every committed rule up to some index, never a part of one commit. */
  void ruleListChanged(RuleList list);

  /**
   * A committed rule cannot be applied (undecodable bytes, or an L beyond this process's shard count): the client
   * stops at the rule before it, since skipping a rule would route rows where no one looks for them.
   */
  default void ruleListStalled(String reason) {}
}
