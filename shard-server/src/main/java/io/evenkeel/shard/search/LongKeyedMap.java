package io.evenkeel.shard.search;

/**
 * A map from long keys to values, looked up without boxing the key: the groups of an aggregation by one integer
 * column, where a {@code HashMap<Long, V>} would allocate a key and hash an object for each row. Open addressing with
 * linear probing, grown at half full. Not thread-safe.
 */
final class LongKeyedMap<V> {
  private long[] keys = new long[16];
  private Object[] values = new Object[16];
  private int size;

  @SuppressWarnings("unchecked")
  V get(long key) {
    int mask = keys.length - 1;
    for (int slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      Object value = values[slot];
      if (value == null) {
        return null;
      }
      if (keys[slot] == key) {
        return (V) value;
      }
    }
  }

  /** Maps {@code key}, which must not be mapped yet, to {@code value} (not null). */
  void put(long key, V value) {
    if (2 * (size + 1) > keys.length) {
      grow();
    }
    insert(key, value);
    size++;
  }

  private void insert(long key, Object value) {
    int mask = keys.length - 1;
    int slot = hash(key) & mask;
    while (values[slot] != null) {
      slot = (slot + 1) & mask;
    }
    keys[slot] = key;
    values[slot] = value;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldValues.length * 2];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldValues[i] != null) {
        insert(oldKeys[i], oldValues[i]);
      }
    }
  }

  /** Spreads keys that differ in their high bits (epoch times, row ids) over the table. */
  private static int hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
