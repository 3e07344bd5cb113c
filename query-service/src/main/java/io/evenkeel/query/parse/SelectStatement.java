package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;
import java.util.List;

/**
 * A parsed, validated and parameter-bound {@code SELECT} on {@code transaction_logs}.
 *
 * @param where null when there is none
 * @param having null when there is none
 * @param limit null when there is none
 * @param explain {@code EXPLAIN SELECT ...}: answer with the plan instead of rows
 */
public record SelectStatement(
    List<SelectItem> items,
    boolean distinct,
    Expr where,
    List<Expr> groupBy,
    Expr having,
    List<OrderItem> orderBy,
    Long limit,
    long offset,
    boolean explain) implements Statement {
  public SelectStatement {
    items = List.copyOf(items);
    groupBy = List.copyOf(groupBy);
    orderBy = List.copyOf(orderBy);
  }

  @Override
  public List<String> labels() {
    return items.stream().map(SelectItem::label).toList();
  }

  /** This statement answering at most {@code rows} rows: its LIMIT lowered to that, if it has none or a larger. */
  public SelectStatement limitedTo(long rows) {
    if (limit != null && limit <= rows) {
      return this;
    }
    return new SelectStatement(items, distinct, where, groupBy, having, orderBy, rows, offset, explain);
  }

  /**
   * OFFSET + LIMIT: the rows a page reaches to, at most {@link Long#MAX_VALUE} (MySQL's idiom for "every row after the
   * offset" is LIMIT 18446744073709551615); null without a LIMIT.
   */
  public Long end() {
    return limit == null ? null : limit > Long.MAX_VALUE - offset ? Long.MAX_VALUE : offset + limit;
  }

  /** Whether rows are combined into groups: aggregates, GROUP BY, HAVING or DISTINCT. */
  public boolean isAggregate() {
    return distinct || !groupBy.isEmpty() || having != null
        || items.stream().anyMatch(item -> item.expr().hasAggregate())
        || orderBy.stream().anyMatch(item -> item.expr().hasAggregate());
  }
}
