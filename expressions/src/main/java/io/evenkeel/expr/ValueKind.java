package io.evenkeel.expr;

import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.List;

/**
 * What an expression's values are in an answer, as far as the expression alone tells: numbers, text (strings and
 * date-times, which answers show as text), or either. A UNION types each column by all its parts with this, as
 * MySQL types it by their declared types, before any row is seen.
 */
public enum ValueKind {
  NUMBER,
  TEXT,
  /** Not known from the expression alone (NULL, or a choice between values of different kinds). */
  EITHER;

  /** The kind of one expression's values. */
  public static ValueKind of(Expr expr) {
    if (expr instanceof Expr.Column column) {
      ColumnType type = TransactionLogsTable.require(column.name()).type();
      return type == ColumnType.KEYWORD || type == ColumnType.TEXT || type == ColumnType.ATTRIBUTES ? TEXT : NUMBER;
    }
    if (expr instanceof Expr.Attr) {
      return TEXT;
    }
    if (expr instanceof Expr.Literal literal) {
      return literal.value() == null ? EITHER : literal.value() instanceof String
          || literal.value() instanceof SqlDateTime ? TEXT : NUMBER;
    }
    if (expr instanceof Expr.Aggregate aggregate) {
      return switch (aggregate.function()) {
        case MIN, MAX -> of(aggregate.arg());
        default -> NUMBER;
      };
    }
    Expr.Call call = (Expr.Call) expr;
    List<Expr> args = call.args();
    return switch (call.op()) {
      case DATE_FORMAT, CAST_CHAR, LOWER, UPPER, CONCAT, CONCAT_WS, SUBSTRING, LEFT, RIGHT, TRIM, REPLACE, LPAD, RPAD,
          FROM_UNIXTIME, DATE, DATE_ADD, CAST_DATETIME -> TEXT;
      case IFNULL, COALESCE, GREATEST, LEAST -> common(args);
      case NULLIF -> of(args.get(0));
      case IF -> common(args.subList(1, 3));
      case CASE -> {
        List<Expr> results = new ArrayList<>();
        for (int i = 1; i < args.size(); i += 2) {
          results.add(args.get(i));
        }
        results.add(args.get(args.size() - 1));
        yield common(results);
      }
      case INTERVAL -> EITHER;
      default -> NUMBER;
    };
  }

  /** The kind of a value that is one of {@code exprs}' (a NULL among them aside): text if any may be. */
  private static ValueKind common(List<Expr> exprs) {
    ValueKind kind = null;
    for (Expr expr : exprs) {
      if (!Expr.Literal.NULL.equals(expr)) {
        kind = kind == null ? of(expr) : kind.and(of(expr));
      }
    }
    return kind == null ? EITHER : kind;
  }

  /** The kind of a column whose values are of this kind in some rows and of {@code other} in others. */
  public ValueKind and(ValueKind other) {
    if (this == TEXT || other == TEXT) {
      return TEXT;
    }
    return this == NUMBER && other == NUMBER ? NUMBER : EITHER;
  }
}
