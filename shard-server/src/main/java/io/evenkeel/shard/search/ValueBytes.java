package io.evenkeel.shard.search;

/** The heap a SQL value a search holds takes, about: what its reservations against the query's memory count. */
final class ValueBytes {
  private ValueBytes() {}

  /** A string's object and characters, a boxed long or boolean, or a decimal or date-time with its parts. */
  static long of(Object value) {
    if (value instanceof String text) {
      return 48 + 2L * text.length();
    }
    return value == null ? 0 : value instanceof Long || value instanceof Boolean ? 24 : 96;
  }
}
