package io.evenkeel.router.hashing;

import io.evenkeel.router.rules.ShardTable;

/**
 * The one place that maps hashes to a shard: {@code p = (h1(tenant) mod N + h2(row) mod L) mod N}.
 *
 * <p>A tenant's shards are the L consecutive shards (wrapping at N) that start at {@code h1(tenant) mod N}; a larger
 * L covers every shard a smaller L used, which is why old rows stay reachable when a tenant grows. A tenant routed by
 * a weighted table (LogStore's routing) has the table's shards instead, picked by the same h2.
 */
public final class ShardFormula {
  private final int numShards;
  private final KeyHash tenantHash;
  private final KeyHash rowHash;

  public ShardFormula(int numShards, KeyHash tenantHash, KeyHash rowHash) {
    if (numShards < 1) {
      throw new IllegalArgumentException("the number of shards must be >= 1; got: " + numShards);
    }
    this.numShards = numShards;
    this.tenantHash = tenantHash;
    this.rowHash = rowHash;
  }

  /** The standard formula: XXH3 with the tenant and row seeds of {@link KeyHash}. */
  public static ShardFormula standard(int numShards) {
    return new ShardFormula(numShards, KeyHash.tenant(), KeyHash.row());
  }

  public int numShards() {
    return numShards;
  }

  /** The first shard of the tenant's range: {@code h1(tenant) mod N}. */
  public int baseShard(long tenant) {
    return (int) Long.remainderUnsigned(tenantHash.hash(tenant), numShards);
  }

  /**
   * The shard of a row, given the tenant's offset size {@code L}.
   *
   * @param offsetSize a power of two in [1, N]; callers validate it once when the rule is made, not per row
   */
  public int shard(long tenant, long rowId, int offsetSize) {
    int offset = (int) (rowHash.hash(rowId) & (offsetSize - 1));
    int shard = baseShard(tenant) + offset;
    return shard >= numShards ? shard - numShards : shard;
  }

  /** The shard of a row of a tenant routed by a weighted table: by h2 of the row, read as a fraction. */
  public int shard(long rowId, ShardTable table) {
    return table.pick((rowHash.hash(rowId) >>> 11) * 0x1.0p-53);
  }
}
