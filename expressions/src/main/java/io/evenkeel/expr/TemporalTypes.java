package io.evenkeel.expr;

import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The DATE or DATETIME(n) type MySQL gives an expression before it runs, so that CASE, IF, IFNULL, COALESCE, GREATEST
 * and LEAST over a mix of them answer as MySQL's do: of type DATETIME with the most fractional digits among their
 * results, a DATE among them shown as that day's midnight ({@code COALESCE(DATE(t), t)}). Expressions whose type
 * is not known here (a value of another kind, a FROM_UNIXTIME of an expression of unknown scale) are left as they are.
 */
public final class TemporalTypes {
  /** No temporal type: another kind, or not known. */
  private static final int OTHER = Integer.MIN_VALUE;
  /** The type of NULL, which takes the others'. */
  private static final int NULL = -2;
  private static final int DATE = -1;

  private static final Set<String> DAY_UNITS = Set.of("DAY", "WEEK", "MONTH", "QUARTER", "YEAR");

  private TemporalTypes() {}

  /**
   * The arguments of a call of {@code op} with those of its results that are DATEs or DATETIMEs of fewer digits cast
   * to the DATETIME the call gives, when it gives one; {@code args} otherwise.
   */
  public static List<Expr> unify(Op op, List<Expr> args) {
    List<Integer> results = resultPositions(op, args.size());
    if (results.isEmpty()) {
      return args;
    }
    int type = combined(args, results);
    if (type < 0) {
      return args;
    }
    List<Expr> unified = new ArrayList<>(args);
    for (int i : results) {
      int argType = type(args.get(i));
      if (argType == DATE || (argType >= 0 && argType < type)) {
        unified.set(i, Expr.Call.of(Op.CAST_DATETIME, args.get(i), new Expr.Literal((long) type)));
      }
    }
    return unified;
  }

  /** Which arguments of {@code op} are its possible results. */
  private static List<Integer> resultPositions(Op op, int arity) {
    List<Integer> positions = new ArrayList<>();
    switch (op) {
      case CASE -> {
        for (int i = 1; i < arity; i += 2) {
          positions.add(i);
        }
        positions.add(arity - 1);
      }
      case IF -> positions.addAll(List.of(1, 2));
      case IFNULL, COALESCE, GREATEST, LEAST -> {
        for (int i = 0; i < arity; i++) {
          positions.add(i);
        }
      }
      default -> { }
    }
    return positions;
  }

  private static int combined(List<Expr> args, List<Integer> positions) {
    int type = NULL;
    for (int i : positions) {
      int argType = type(args.get(i));
      if (argType == OTHER) {
        return OTHER;
      }
      if (argType == NULL) {
        continue;
      }
      type = type == NULL ? argType : type == DATE && argType == DATE ? DATE : Math.max(Math.max(type, argType), 0);
    }
    return type;
  }

  /** DATE, DATETIME(n) as n, NULL, or OTHER. */
  private static int type(Expr expr) {
    if (expr instanceof Expr.Literal literal) {
      return literal.value() == null ? NULL : OTHER;
    }
    if (!(expr instanceof Expr.Call call)) {
      return OTHER;
    }
    List<Expr> args = call.args();
    return switch (call.op()) {
      case DATE -> DATE;
      case CAST_DATETIME -> ((Long) ((Expr.Literal) args.get(1)).value()).intValue();
      case FROM_UNIXTIME -> {
        Integer scale = scale(args.get(0));
        yield scale == null ? OTHER : Math.min(6, scale);
      }
      case DATE_ADD -> {
        int base = type(args.get(0));
        boolean days = DAY_UNITS.contains(((String) ((Expr.Literal) args.get(2)).value()).toUpperCase(Locale.ROOT));
        // MySQL types NULL + INTERVAL as no temporal type: a CASE over it is not unified.
        yield base == DATE ? (days ? DATE : 0) : base == NULL ? OTHER : base;
      }
      case NULLIF -> type(args.get(0));
      case CASE, IF, IFNULL, COALESCE, GREATEST, LEAST -> combined(args, resultPositions(call.op(), args.size()));
      default -> OTHER;
    };
  }

  /** The decimal scale MySQL gives a numeric expression, where it is plain; null otherwise. */
  private static Integer scale(Expr expr) {
    if (expr instanceof Expr.Column column) {
      return switch (TransactionLogsTable.require(column.name()).type()) {
        case LONG, INT -> 0;
        case DECIMAL -> TransactionLogsTable.PRICE_SCALE;
        default -> null;
      };
    }
    if (expr instanceof Expr.Literal literal) {
      return literal.value() instanceof Long ? 0 : literal.value() instanceof BigDecimal decimal
          ? Math.max(0, decimal.scale()) : null;
    }
    if (expr instanceof Expr.Call call && call.args().size() == 2) {
      Integer a = scale(call.args().get(0));
      Integer b = scale(call.args().get(1));
      if (a == null || b == null) {
        return null;
      }
      return switch (call.op()) {
        case PLUS, MINUS -> Math.max(a, b);
        case TIMES -> a + b;
        case DIVIDE -> a + SqlValues.DIV_PRECISION_INCREMENT;
        default -> null;
      };
    }
    return null;
  }
}
