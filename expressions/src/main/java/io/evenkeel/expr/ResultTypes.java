package io.evenkeel.expr;

import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The type MySQL gives CASE, IF, IFNULL, COALESCE, GREATEST and LEAST before they run, from their results' types, so
 * that they answer as MySQL's do: over DATEs and DATETIMEs, a DATETIME with the most fractional digits among them, a
 * DATE shown as that day's midnight ({@code COALESCE(DATE(t), t)}); over numbers, a decimal shown with the most
 * digits after the point among them ({@code IF(c, price / 7, 1 / 7)} shows six either way). Calls whose results'
 * types are not all known here (a FROM_UNIXTIME of an expression of unknown scale, a function's number) are left as
 * they are.
 */
public final class ResultTypes {
  /** No temporal type: another kind, or not known. */
  private static final int OTHER = Integer.MIN_VALUE;
  /** The type of NULL, which takes the others'. */
  private static final int NULL = -2;
  private static final int DATE = -1;

  private static final Set<String> DAY_UNITS = Set.of("DAY", "WEEK", "MONTH", "QUARTER", "YEAR");

  private ResultTypes() {}

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
    if (type == OTHER) {
      return decimalsUnified(args, results);
    }
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

  /** The arguments with those results that show fewer digits after the point than the most shown made to show it. */
  private static List<Expr> decimalsUnified(List<Expr> args, List<Integer> results) {
    Integer most = mostDigits(args, results);
    if (most == null || most == 0) {
      return args;
    }
    List<Expr> unified = new ArrayList<>(args);
    for (int i : results) {
      Integer digits = scale(args.get(i));
      if (digits != null && digits < most) {
        unified.set(i, Expr.Call.of(Op.SHOWN_SCALE, args.get(i), new Expr.Literal((long) (int) most)));
      }
    }
    return unified;
  }

  /** The most digits after the point among the results; null when a result's is not known (NULL has none). */
  private static Integer mostDigits(List<Expr> args, List<Integer> results) {
    int most = -1;
    for (int i : results) {
      Expr result = args.get(i);
      if (result instanceof Expr.Literal literal && literal.value() == null) {
        continue;
      }
      Integer digits = scale(result);
      if (digits == null) {
        return null;
      }
      most = Math.max(most, digits);
    }
    return most < 0 ? null : most;
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

  /** The digits after the point MySQL shows of a numeric expression, where it is known here; null otherwise. */
  private static Integer scale(Expr expr) {
    if (expr instanceof Expr.Column column) {
      return switch (TransactionLogsTable.require(column.name()).type()) {
        case LONG, INT -> Integer.valueOf(0);
        case DECIMAL -> Integer.valueOf(TransactionLogsTable.PRICE_SCALE);
        default -> null;
      };
    }
    if (expr instanceof Expr.Literal literal) {
      if (literal.value() instanceof Long) {
        return 0;
      }
      return literal.value() instanceof BigDecimal decimal ? Integer.valueOf(SqlValues.shownScale(decimal)) : null;
    }
    if (!(expr instanceof Expr.Call call)) {
      return null;
    }
    List<Expr> args = call.args();
    return switch (call.op()) {
      case PLUS, MINUS, MOD -> both(args, Math::max);
      case TIMES -> both(args, Integer::sum);
      case DIVIDE -> {
        Integer dividend = scale(args.get(0));
        yield dividend == null ? null : Integer.valueOf(Math.min(SqlValues.MAX_DECIMAL_SCALE,
            dividend + SqlValues.DIV_PRECISION_INCREMENT));
      }
      case NEGATE, ABS, NULLIF -> scale(args.get(0));
      // Boxed throughout: an int arm would make the switch an int and unbox the others' nulls.
      case ROUND, TRUNCATE -> args.get(1) instanceof Expr.Literal digits && digits.value() instanceof Long n
          ? Integer.valueOf((int) Math.max(0, Math.min(SqlValues.MAX_DECIMAL_SCALE, n))) : null;
      case CAST_DECIMAL -> Integer.valueOf(((Long) ((Expr.Literal) args.get(2)).value()).intValue());
      case SHOWN_SCALE -> Integer.valueOf(((Long) ((Expr.Literal) args.get(1)).value()).intValue());
      case CAST_SIGNED, CAST_UNSIGNED, FLOOR, CEIL, SIGN, DIV, LENGTH, CHAR_LENGTH, LOCATE, DATE_PART, DATEDIFF ->
          Integer.valueOf(0);
      case CASE, IF, IFNULL, COALESCE, GREATEST, LEAST -> mostDigits(args, resultPositions(call.op(), args.size()));
      default -> null;
    };
  }

  private static Integer both(List<Expr> args, java.util.function.BinaryOperator<Integer> combine) {
    Integer a = scale(args.get(0));
    Integer b = scale(args.get(1));
    return a == null || b == null ? null : combine.apply(a, b);
  }
}
