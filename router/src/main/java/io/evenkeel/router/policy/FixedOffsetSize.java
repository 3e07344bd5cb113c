package io.evenkeel.router.policy;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.ShardSet;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.OffsetSize;

/** One L for every tenant at every time: hashing (L = 1) and double hashing. */
final class FixedOffsetSize implements RoutingPolicy {
  private final String name;
  private final ShardFormula formula;
  private final int offsetSize;

  FixedOffsetSize(String name, ShardFormula formula, int offsetSize) {
    this.name = name;
    this.formula = formula;
    this.offsetSize = OffsetSize.check("offset size L", offsetSize, formula.numShards());
  }

  @Override
  public int shardFor(long tenant, long rowId, long createdTime) {
    return formula.shard(tenant, rowId, offsetSize);
  }

  @Override
  public ShardSet shardsFor(long tenant, long fromTime, long toTime) {
    return ShardSet.of(new ShardRange(formula.baseShard(tenant), offsetSize, formula.numShards()));
  }

  @Override
  public int spreadAt(long tenant, long createdTime) {
    return offsetSize;
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
