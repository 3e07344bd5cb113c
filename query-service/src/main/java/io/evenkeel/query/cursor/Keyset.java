package io.evenkeel.query.cursor;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Keyset paging: the rows after a position in a query's total order, as a predicate its WHERE clause gains. The
 * total order is the ORDER BY keys, then {@code tenant_id} and {@code row_id}, the order the shards and the merge use;
 * NULL sorts first ascending and last descending, as in MySQL.
 */
public final class Keyset {
  private static final Expr TENANT_ID = new Expr.Column("tenant_id");
  private static final Expr ROW_ID = new Expr.Column("row_id");

  private Keyset() {}

  /**
   * Whether the pages of {@code statement} can continue after their last row: a query of rows (no groups), with a
   * LIMIT, ordered by columns the shards sort by (or not ordered).
   */
  public static boolean pageable(SelectStatement statement) {
    return !statement.isAggregate() && !statement.explain() && statement.limit() != null && statement.limit() > 0
        && statement.orderBy().stream().allMatch(item -> sortColumn(item.expr()).isPresent());
  }

  /** The keys of {@code statement}'s total order: its ORDER BY keys, then tenant_id and row_id ascending. */
  public static List<OrderItem> keys(SelectStatement statement) {
    List<OrderItem> keys = new ArrayList<>(statement.orderBy());
    keys.add(new OrderItem(TENANT_ID, false));
    keys.add(new OrderItem(ROW_ID, false));
    return keys;
  }

  /**
   * The page of {@code statement} after the row at {@code position} (the values of {@link #keys}): its WHERE clause
   * and the rows after the position, from OFFSET 0.
   */
  public static SelectStatement after(SelectStatement statement, List<Object> position) {
    if (!pageable(statement)) {
      throw new IllegalArgumentException("the cursor's statement cannot be paged by a cursor");
    }
    List<OrderItem> keys = keys(statement);
    if (position.size() != keys.size()) {
      throw new IllegalArgumentException("the cursor holds " + position.size() + " key values and its statement "
          + "orders by " + keys.size());
    }
    Expr after = Expr.Call.of(Op.OR, disjuncts(keys, position).toArray(Expr[]::new));
    Expr where = statement.where() == null ? after : Expr.Call.of(Op.AND, statement.where(), after);
    return new SelectStatement(statement.items(), statement.distinct(), where, statement.groupBy(),
        statement.having(), statement.orderBy(), statement.limit(), 0, false);
  }

  /**
   * (k1 after v1) OR (k1 = v1 AND k2 after v2) OR ...; a key that came earlier in the order is skipped: it is equal
   * by then and cannot order anything.
   */
  private static List<Expr> disjuncts(List<OrderItem> keys, List<Object> position) {
    List<Expr> disjuncts = new ArrayList<>();
    List<Expr> equal = new ArrayList<>();
    List<Expr> seen = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      OrderItem key = keys.get(i);
      if (seen.contains(key.expr())) {
        continue;
      }
      seen.add(key.expr());
      Object value = position.get(i);
      checkType(key.expr(), value);
      Expr beyond = beyond(key, value);
      if (beyond != null) {
        List<Expr> conjuncts = new ArrayList<>(equal);
        conjuncts.add(beyond);
        disjuncts.add(conjuncts.size() == 1 ? beyond : Expr.Call.of(Op.AND, conjuncts.toArray(Expr[]::new)));
      }
      equal.add(value == null ? Expr.Call.of(Op.IS_NULL, key.expr())
          : Expr.Call.of(Op.EQ, key.expr(), new Expr.Literal(value)));
    }
    return disjuncts;
  }

  /** The rows that come after {@code value} by this key alone; null when none can (after NULL descending). */
  private static Expr beyond(OrderItem key, Object value) {
    Expr column = key.expr();
    if (!key.descending()) {
      return value == null ? Expr.Call.of(Op.IS_NOT_NULL, column) : Expr.Call.of(Op.GT, column,
          new Expr.Literal(value));
    }
    if (value == null) {
      return null;
    }
    Expr below = Expr.Call.of(Op.LT, column, new Expr.Literal(value));
    return nullable(column) ? Expr.Call.of(Op.OR, below, Expr.Call.of(Op.IS_NULL, column)) : below;
  }

  private static boolean nullable(Expr column) {
    return sortColumn(column).map(Column::nullable).orElse(true);
  }

  /** A cursor's value must be of its column's kind: a tampered token is refused, not compared across types. */
  private static void checkType(Expr key, Object value) {
    Column column = sortColumn(key).orElseThrow();
    boolean fits = value == null ? column.nullable() : switch (column.type()) {
      case LONG, INT -> value instanceof Long;
      case DECIMAL -> value instanceof java.math.BigDecimal;
      case KEYWORD -> value instanceof String;
      default -> false;
    };
    if (!fits) {
      throw new IllegalArgumentException("the cursor's value " + value + " does not fit column " + column.name());
    }
  }

  private static Optional<Column> sortColumn(Expr expr) {
    return expr instanceof Expr.Column column ? TransactionLogsTable.column(column.name())
        .filter(Column::hasDocValues) : Optional.empty();
  }
}
