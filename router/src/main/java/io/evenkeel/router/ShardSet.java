package io.evenkeel.router;

import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.Collectors;

/**
 * The shards a query for one tenant must visit: a {@link ShardRange} of consecutive shards under hashing and
 * dynamic secondary hashing, any set of shards once a tenant's rows were routed by a weighted table (LogStore's
 * routing), and the union of several when the rows of a time interval were routed by more than one rule. Immutable.
 */
public final class ShardSet {
  private final BitSet shards;
  private final int numShards;

  private ShardSet(BitSet shards, int numShards) {
    this.shards = shards;
    this.numShards = numShards;
  }

  public static ShardSet of(ShardRange range) {
    return of(range.numShards(), range.shards());
  }

  /** The given shards, each in [0, {@code numShards}). */
  public static ShardSet of(int numShards, int... shards) {
    if (numShards < 1) {
      throw new IllegalArgumentException("the number of shards must be >= 1; got: " + numShards);
    }
    BitSet bits = new BitSet(numShards);
    for (int shard : shards) {
      if (shard < 0 || shard >= numShards) {
        throw new IllegalArgumentException("shard " + shard + " is not in [0, " + numShards + ")");
      }
      bits.set(shard);
    }
    return new ShardSet(bits, numShards);
  }

  public static ShardSet all(int numShards) {
    return of(ShardRange.all(numShards));
  }

  /** The shards of this set or {@code other} (over the same shards). */
  public ShardSet union(ShardSet other) {
    if (other.numShards != numShards) {
      throw new IllegalArgumentException("shard sets over " + numShards + " and " + other.numShards + " shards");
    }
    BitSet both = (BitSet) shards.clone();
    both.or(other.shards);
    return new ShardSet(both, numShards);
  }

  public int size() {
    return shards.cardinality();
  }

  public int numShards() {
    return numShards;
  }

  public boolean contains(int shard) {
    return shard >= 0 && shard < numShards && shards.get(shard);
  }

  /** The shard numbers, ascending. */
  public int[] shards() {
    return shards.stream().toArray();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardSet s && s.numShards == numShards && s.shards.equals(shards);
  }

  @Override
  public int hashCode() {
    return shards.hashCode() * 31 + numShards;
  }

  /** A range as {@link ShardRange} writes it ("[14..1]" wraps past the last shard), other sets shard by shard. */
  @Override
  public String toString() {
    int[] members = shards();
    if (members.length > 1) {
      // A range starts at the one member whose predecessor is not a member (or at 0 when all are).
      int first = Arrays.stream(members).filter(s -> !shards.get((s + numShards - 1) % numShards)).findFirst()
          .orElse(0);
      ShardRange range = new ShardRange(first, members.length, numShards);
      if (Arrays.stream(range.shards()).allMatch(shards::get)) {
        return range.toString();
      }
    }
    return Arrays.stream(members).mapToObj(Integer::toString).collect(Collectors.joining(", ", "[", "]"));
  }
}
