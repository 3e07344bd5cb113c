package io.evenkeel.router;

/**
 * {@code size} consecutive shards starting at {@code first}, wrapping past the last shard to shard 0: the shards a
 * query for one tenant must visit.
 */
public record ShardRange(int first, int size, int numShards) {
  public ShardRange {
    if (numShards < 1 || first < 0 || first >= numShards || size < 0 || size > numShards) {
      throw new IllegalArgumentException(
          "a shard range needs 0 <= first < numShards and 0 <= size <= numShards; got: first=" + first + ", size="
              + size + ", numShards=" + numShards);
    }
  }

  public static ShardRange all(int numShards) {
    return new ShardRange(0, numShards, numShards);
  }

  public boolean contains(int shard) {
    if (shard < 0 || shard >= numShards) {
      return false;
    }
    int distance = shard - first;
    return (distance < 0 ? distance + numShards : distance) < size;
  }

  /** The shard numbers in range order, from {@code first}. */
  public int[] shards() {
    int[] shards = new int[size];
    for (int i = 0; i < size; i++) {
      shards[i] = (first + i) % numShards;
    }
    return shards;
  }

  @Override
  public String toString() {
    return size == 0 ? "[]" : size == 1 ? "[" + first + "]" : "[" + first + ".." + (first + size - 1) % numShards + "]";
  }
}
