package io.evenkeel.query.merge;

import java.util.List;

/** OFFSET and LIMIT over a merged, sorted list. */
final class Page {
  private Page() {}

  static <T> List<T> slice(List<T> sorted, long offset, Long limit) {
    int from = (int) Math.min(sorted.size(), offset);
    int to = limit == null ? sorted.size() : (int) Math.min(sorted.size() - from, limit) + from;
    return sorted.subList(from, to);
  }
}
