package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;
import io.evenkeel.query.result.QueryException;
import java.util.List;

/**
 * In a grouped query every value outside an aggregate must be fixed per group: a GROUP BY key or built from them
 * (MySQL's ONLY_FULL_GROUP_BY). MariaDB's default would return an arbitrary row's value instead; the service
 * refuses, naming the column, rather than answer differently from run to run.
 */
final class GroupingCheck {
  private GroupingCheck() {}

  static void check(SelectStatement statement) {
    for (SelectItem item : statement.items()) {
      check(item.expr(), statement.groupBy(), "SELECT");
    }
    if (statement.having() != null) {
      check(statement.having(), statement.groupBy(), "HAVING");
    }
    for (OrderItem item : statement.orderBy()) {
      check(item.expr(), statement.groupBy(), "ORDER BY");
    }
  }

  private static void check(Expr expr, List<Expr> groupBy, String clause) {
    if (groupBy.contains(expr) || expr instanceof Expr.Aggregate || expr instanceof Expr.Literal) {
      return;
    }
    if (expr instanceof Expr.Call call) {
      call.args().forEach(arg -> check(arg, groupBy, clause));
      return;
    }
    throw QueryException.invalid(clause + " uses " + expr + ", which is neither a GROUP BY key nor inside an "
        + "aggregate function");
  }
}
