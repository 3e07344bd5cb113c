package io.evenkeel.router.policy;

import io.evenkeel.router.ShardSet;
import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TransactionLogChange;

/**
 * Where rows live and which shards a tenant's query must visit. Every policy uses the same {@link ShardFormula}; they
 * differ only in how they choose the offset size L (or, under LogStore's routing, a tenant's weighted table).
 */
public interface RoutingPolicy {
  /** The shard of a row of {@code tenant} created at {@code createdTime}. */
  int shardFor(long tenant, long rowId, long createdTime);

  /** The shards holding the rows of {@code tenant} created in [{@code fromTime}, {@code toTime}]. */
  ShardSet shardsFor(long tenant, long fromTime, long toTime);

  /**
   * How many shards the rows of {@code tenant} created at {@code createdTime} spread over: L, or the size of its
   * weighted table under LogStore's routing.
   */
  int spreadAt(long tenant, long createdTime);

  int numShards();

  /** A short name for reports: "hashing", "double-hashing(L=8)", "dynamic", "logstore". */
  String name();

  /** The shard of a change: by its row's creation time, so updates and deletes go where the insert went. */
  default int shardFor(TransactionLogChange change) {
    return shardFor(change.getTenantId(), change.getRowId(), change.getCreatedTime());
  }

  /** The shards holding any row of {@code tenant}. */
  default ShardSet shardsFor(long tenant) {
    return shardsFor(tenant, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /** Plain hashing: every tenant on one shard (L = 1). */
  static RoutingPolicy hashing(int numShards) {
    return new FixedOffsetSize("hashing", ShardFormula.standard(numShards), 1);
  }

  /** Double hashing: every tenant over the same {@code offsetSize} shards. */
  static RoutingPolicy doubleHashing(int numShards, int offsetSize) {
    return new FixedOffsetSize(
        "double-hashing(L=" + offsetSize + ")", ShardFormula.standard(numShards), offsetSize);
  }

  /** Dynamic secondary hashing: each tenant's L over time comes from the rule list. */
  static RoutingPolicy dynamic(RuleList rules) {
    return new RuleListRouting("dynamic", ShardFormula.standard(rules.numShards()), rules);
  }

  /**
   * LogStore's routing: each tenant's weighted table of shards over time comes from the rule list's table rules
   * (tenants without one stay on their base shard, as under hashing).
   */
  static RoutingPolicy logStore(RuleList rules) {
    return new RuleListRouting("logstore", ShardFormula.standard(rules.numShards()), rules);
  }
}
