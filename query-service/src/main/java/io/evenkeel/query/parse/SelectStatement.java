package io.evenkeel.query.parse;

import io.evenkeel.query.expr.Expr;
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
    boolean explain) {
  public SelectStatement {
    items = List.copyOf(items);
    groupBy = List.copyOf(groupBy);
    orderBy = List.copyOf(orderBy);
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
