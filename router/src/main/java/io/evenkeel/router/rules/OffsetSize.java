package io.evenkeel.router.rules;

/** The one check of an offset size L: a power of two in [1, N], where N is the number of shards. */
public final class OffsetSize {
  private OffsetSize() {}

  /** The largest L that N shards allow: the largest power of two <= N. */
  public static int max(int numShards) {
    return Integer.highestOneBit(numShards);
  }

  /** Returns {@code offsetSize}, or throws naming the value and the allowed range. */
  public static int check(String what, int offsetSize, int numShards) {
    if (offsetSize < 1 || Integer.bitCount(offsetSize) != 1 || offsetSize > numShards) {
      throw new IllegalArgumentException(what + " must be a power of two in [1, " + max(numShards) + "] for "
          + numShards + " shards; got: " + offsetSize);
    }
    return offsetSize;
  }
}
