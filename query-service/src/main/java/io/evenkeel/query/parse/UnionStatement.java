package io.evenkeel.query.parse;

import java.util.List;

/**
 * {@code left UNION [ALL] right}, then its own ORDER BY, LIMIT and OFFSET over the whole. A chain of unions nests to
 * the left, so a {@code UNION} (distinct) removes the duplicates of every part to its left, as in MySQL. The output
 * columns are named by the leftmost SELECT; every part has as many.
 *
 * @param all {@code UNION ALL} keeps duplicate rows; {@code UNION} keeps one of each
 * @param orderBy keys by output column, applied to the combined rows
 * @param limit null when there is none
 */
public record UnionStatement(Statement left, Statement right, boolean all, List<Order> orderBy, Long limit,
    long offset, boolean explain) implements Statement {
  /** An ORDER BY key of a union: an output column by position (0-based). */
  public record Order(int column, boolean descending) {}

  public UnionStatement {
    orderBy = List.copyOf(orderBy);
  }

  @Override
  public List<String> labels() {
    return left.labels();
  }

  /** This union answering at most {@code rows} rows: its LIMIT lowered to that, if it has none or a larger. */
  public UnionStatement limitedTo(long rows) {
    if (limit != null && limit <= rows) {
      return this;
    }
    return new UnionStatement(left, right, all, orderBy, rows, offset, explain);
  }

  /** OFFSET + LIMIT, at most {@link Long#MAX_VALUE}; null without a LIMIT. */
  public Long end() {
    return limit == null ? null : limit > Long.MAX_VALUE - offset ? Long.MAX_VALUE : offset + limit;
  }
}
