package io.evenkeel.router.policy;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.ShardSet;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;

/**
 * Routing by one immutable rule list: ESDB's dynamic secondary hashing, and LogStore's routing. A write uses the L in
 * force at its row's creation time, or the weighted table then in force; a query visits the consecutive shards of
 * the largest L in force over its time bounds and every table's shards in force over them.
 */
final class RuleListRouting implements RoutingPolicy {
  private final String name;
  private final ShardFormula formula;
  private final RuleList rules;

  RuleListRouting(String name, ShardFormula formula, RuleList rules) {
    this.name = name;
    this.formula = formula;
    this.rules = rules;
  }

  @Override
  public int shardFor(long tenant, long rowId, long createdTime) {
    ShardTable table = rules.tableFor(tenant, createdTime);
    return table != null ? formula.shard(rowId, table)
        : formula.shard(tenant, rowId, rules.offsetSizeFor(tenant, createdTime));
  }

  @Override
  public ShardSet shardsFor(long tenant, long fromTime, long toTime) {
    int size = rules.maxOffsetSizeBetween(tenant, fromTime, toTime);
    ShardSet shards = ShardSet.of(new ShardRange(formula.baseShard(tenant), size, formula.numShards()));
    for (ShardTable table : rules.tablesBetween(tenant, fromTime, toTime)) {
      shards = shards.union(ShardSet.of(formula.numShards(), table.shards()));
    }
    return shards;
  }

  @Override
  public int spreadAt(long tenant, long createdTime) {
    return rules.spreadFor(tenant, createdTime);
  }

  @Override
  public int numShards() {
    return formula.numShards();
  }

  @Override
  public String name() {
    return name;
  }
}
