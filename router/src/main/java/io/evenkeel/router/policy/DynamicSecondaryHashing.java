package io.evenkeel.router.policy;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.RuleList;

/**
 * ESDB's dynamic secondary hashing over one immutable rule list. A write uses the L in force at its row's creation
 * time; a query visits the consecutive shards of the largest L in force over its time bounds.
 */
final class DynamicSecondaryHashing implements RoutingPolicy {
  private final ShardFormula formula;
  private final RuleList rules;

  DynamicSecondaryHashing(ShardFormula formula, RuleList rules) {
    this.formula = formula;
    this.rules = rules;
  }

  @Override
  public int shardFor(long tenant, long rowId, long createdTime) {
    return formula.shard(tenant, rowId, rules.offsetSizeFor(tenant, createdTime));
  }

  @Override
  public ShardRange shardsFor(long tenant, long fromTime, long toTime) {
    int size = rules.maxOffsetSizeBetween(tenant, fromTime, toTime);
    return new ShardRange(formula.baseShard(tenant), size, formula.numShards());
  }

  @Override
  public int numShards() {
    return formula.numShards();
  }

  @Override
  public String name() {
    return "dynamic";
  }
}
