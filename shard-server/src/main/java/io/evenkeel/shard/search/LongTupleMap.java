package io.evenkeel.shard.search;

/**
 * A map from tuples of {@code width} longs to values, looked up without making an object of the key: the groups of a
 * segment by their GROUP BY keys' codes ({@link KeyCodes}), where a {@code HashMap} would allocate, hash and compare a
 * key object for each row. Open addressing with linear probing, grown at half full. Not thread-safe.
 */
final class LongTupleMap<V> {
  private final int width;
  private long[] keys;
  private Object[] values;
  private int size;

  LongTupleMap(int width) {
    if (width < 1) {
      throw new IllegalArgumentException("a tuple has at least one long; got " + width);
    }
    this.width = width;
    this.keys = new long[16 * width];
    this.values = new Object[16];
  }

  int size() {
    return size;
  }

  /** The value of the first {@code width} longs of {@code tuple}, or null. */
  @SuppressWarnings("unchecked")
  V get(long[] tuple) {
    if (width == 1) {
      return get(tuple[0]);
    }
    int mask = values.length - 1;
    for (int slot = hash(tuple) & mask; ; slot = (slot + 1) & mask) {
      Object value = values[slot];
      if (value == null || equalAt(slot, tuple)) {
        return (V) value;
      }
    }
  }

  /** The value of the tuple of {@code key} alone (a map of width 1), or null. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    int mask = values.length - 1;
    for (int slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      Object value = values[slot];
      if (value == null || keys[slot] == key) {
        return (V) value;
      }
    }
  }

  /** Maps the first {@code width} longs of {@code tuple} (copied), which must not be mapped yet, to {@code value}. */
  void put(long[] tuple, V value) {
    if (value == null) {
      throw new IllegalArgumentException("a value of the map is not null");
    }
    if (2 * (size + 1) > values.length) {
      grow();
    }
    insert(tuple, 0, value);
    size++;
  }

  /** How many slots {@link #valueAt} and {@link #keyAt} take: every mapped tuple is in one. */
  int slots() {
    return values.length;
  }

  /** The value in {@code slot}; null for an empty one. */
  @SuppressWarnings("unchecked")
  V valueAt(int slot) {
    return (V) values[slot];
  }

  /** Long {@code i} of the tuple in {@code slot}. */
  long keyAt(int slot, int i) {
    return keys[slot * width + i];
  }

  private boolean equalAt(int slot, long[] tuple) {
    int offset = slot * width;
    if (keys[offset] != tuple[0]) {
      return false;
    }
    for (int i = 1; i < width; i++) {
      if (keys[offset + i] != tuple[i]) {
        return false;
      }
    }
    return true;
  }

  private void insert(long[] tuple, int from, Object value) {
    int mask = values.length - 1;
    int slot = hash(tuple, from) & mask;
    while (values[slot] != null) {
      slot = (slot + 1) & mask;
    }
    System.arraycopy(tuple, from, keys, slot * width, width);
    values[slot] = value;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldValues.length * 2];
    for (int slot = 0; slot < oldValues.length; slot++) {
      if (oldValues[slot] != null) {
        insert(oldKeys, slot * width, oldValues[slot]);
      }
    }
  }

  private int hash(long[] tuple) {
    return hash(tuple, 0);
  }

  /** Spreads tuples that differ in their high bits (epoch times, row ids) or in one long of many over the table. */
  private int hash(long[] tuple, int from) {
    long h = tuple[from];
    for (int i = from + 1; i < from + width; i++) {
      h = (h + tuple[i]) * 0x9E3779B97F4A7C15L;
    }
    return hash(h);
  }

  private static int hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
