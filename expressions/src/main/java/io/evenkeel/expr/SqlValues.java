package io.evenkeel.expr;

import io.evenkeel.schemas.table.KeywordOrder;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * MySQL's value semantics where the service computes values itself: comparisons (strings by code point, as a binary
 * collation), exact decimal arithmetic, and NULL propagation. A string never silently becomes a number: comparing
 * or adding the two is a 400 that names both.
 */
public final class SqlValues {
  /** MySQL's div_precision_increment: a quotient has 4 more fractional digits than its dividend. */
  public static final int DIV_PRECISION_INCREMENT = 4;
  /** MySQL's most digits of a DECIMAL, and most of them after the point. */
  public static final int MAX_DECIMAL_PRECISION = 65;
  public static final int MAX_DECIMAL_SCALE = 30;

  private SqlValues() {}

  /** Sign of a - b, or null when either is NULL. */
  public static Integer compare(Object a, Object b) {
    if (a == null || b == null) {
      return null;
    }
    a = shown(numericBoolean(a));
    b = shown(numericBoolean(b));
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    if (isNumber(a) && isNumber(b)) {
      return decimal(a).compareTo(decimal(b));
    }
    if (a instanceof String x && b instanceof String y) {
      return KeywordOrder.compare(x, y);
    }
    // A date compares with a date string as with the date it names ('2024-05-01', '2024-05-01 12:00:00').
    if (a instanceof SqlDateTime && b instanceof String text) {
      b = orText(DateFunctions.parse(text), text);
    } else if (b instanceof SqlDateTime && a instanceof String text) {
      a = orText(DateFunctions.parse(text), text);
    }
    if (a instanceof SqlDateTime x && b instanceof SqlDateTime y) {
      return x.compareTo(y);
    }
    throw ExpressionException.invalid("cannot compare " + describe(a) + " with " + describe(b)
        + ": strings compare only with strings, numbers with numbers");
  }


  /**
   * The order of ORDER BY keys, which every shard and the merge share: NULL lowest (first ascending, last
   * descending, as in MySQL), then by {@link #compare}.
   */
  public static int compareNullsLowest(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return compare(a, b);
  }

  /** SQL truth of a value: null for UNKNOWN; numbers are TRUE when not zero. */
  public static Boolean truth(Object value) {
    if (value == null || value instanceof Boolean) {
      return (Boolean) value;
    }
    if (isNumber(value)) {
      return decimal(value).signum() != 0;
    }
    throw ExpressionException.invalid("a condition must be a truth value or a number; got " + describe(value));
  }

  public static Object arithmetic(Op op, Object a, Object b) {
    if (a == null || b == null) {
      return null;
    }
    a = numericBoolean(a);
    b = numericBoolean(b);
    if (!isNumber(a) || !isNumber(b)) {
      throw ExpressionException.invalid("arithmetic needs numbers; got " + describe(a) + " " + symbol(op) + " "
          + describe(b));
    }
    if (op == Op.DIVIDE) {
      BigDecimal divisor = decimal(b);
      return divisor.signum() == 0 ? null : quotient(decimal(a), divisor); // MySQL: division by zero is NULL
    }
    if (a instanceof Long x && b instanceof Long y) {
      try {
        return switch (op) {
          case PLUS -> Math.addExact(x, y);
          case MINUS -> Math.subtractExact(x, y);
          case TIMES -> Math.multiplyExact(x, y);
          default -> throw new IllegalArgumentException(op + " is not arithmetic");
        };
      } catch (ArithmeticException overflow) {
        throw ExpressionException.invalid("BIGINT value is out of range in " + x + " " + symbol(op) + " " + y);
      }
    }
    BigDecimal x = decimal(a);
    BigDecimal y = decimal(b);
    BigDecimal result = switch (op) {
      case PLUS -> x.add(y);
      case MINUS -> x.subtract(y);
      case TIMES -> x.multiply(y);
      default -> throw new IllegalArgumentException(op + " is not arithmetic");
    };
    if (!(x instanceof SqlDecimal) && !(y instanceof SqlDecimal)) {
      return result;
    }
    // MySQL's scale of the result, from the digits each side shows; the value keeps every digit.
    return SqlDecimal.of(result, Math.min(MAX_DECIMAL_SCALE, op == Op.TIMES ? shownScale(x) + shownScale(y)
        : Math.max(shownScale(x), shownScale(y))));
  }

  /**
   * {@code a / b} as MySQL computes it: shown with a's shown digits and {@link #DIV_PRECISION_INCREMENT} more, and
   * computed to as many more digits as its decimal division gives (digits in groups of nine: both sides' digits
   * after the point, each rounded up to a group, and the increment beyond what that rounding added), truncated.
   */
  public static BigDecimal quotient(BigDecimal a, BigDecimal b) {
    int fa = Math.max(a.scale(), 0);
    int fb = Math.max(b.scale(), 0);
    int groupsA = groupDigits(fa);
    int groupsB = groupDigits(fb);
    int increment = Math.max(0, DIV_PRECISION_INCREMENT - (groupsA - fa) - (groupsB - fb));
    int digits = Math.min(groupDigits(groupsA + groupsB + increment), 81);
    return SqlDecimal.of(a.divide(b, digits, RoundingMode.DOWN),
        Math.min(MAX_DECIMAL_SCALE, shownScale(a) + DIV_PRECISION_INCREMENT));
  }

  /** {@code digits} rounded up to whole groups of nine, as MySQL's decimals hold them. */
  private static int groupDigits(int digits) {
    return (digits + 8) / 9 * 9;
  }

  /** The digits after the point MySQL shows of a decimal. */
  public static int shownScale(BigDecimal value) {
    return value instanceof SqlDecimal hidden ? hidden.shownScale() : Math.max(value.scale(), 0);
  }

  /** A value as MySQL shows, compares and groups it: a decimal with hidden digits rounded to those it shows. */
  public static Object shown(Object value) {
    return value instanceof SqlDecimal hidden ? hidden.shown() : value;
  }

  public static Object negate(Object value) {
    if (value == null) {
      return null;
    }
    value = numericBoolean(value);
    if (value instanceof Long x) {
      if (x == Long.MIN_VALUE) {
        throw ExpressionException.invalid("BIGINT value is out of range in -(" + x + ")");
      }
      return -x;
    }
    if (value instanceof BigDecimal x) {
      return SqlDecimal.of(x.negate(), shownScale(x));
    }
    throw ExpressionException.invalid("cannot negate " + describe(value));
  }

  /** The date a string names, or the string itself where it names none (the comparison then refuses it). */
  private static Object orText(SqlDateTime date, String text) {
    return date != null ? date : text;
  }

  /** An integral decimal as a BIGINT where it fits, as MySQL types integer literals and results. */
  public static Object integer(BigDecimal whole) {
    try {
      return whole.longValueExact();
    } catch (ArithmeticException tooLarge) {
      return whole;
    }
  }

  public static boolean isNumber(Object value) {
    return value instanceof Long || value instanceof BigDecimal;
  }

  public static BigDecimal decimal(Object number) {
    return number instanceof Long x ? BigDecimal.valueOf(x) : (BigDecimal) number;
  }

  /** A value as the JSON and EXPLAIN output shows it: TRUE/FALSE as 1/0, date-times as text. */
  public static Object output(Object value) {
    if (value instanceof Boolean truth) {
      return truth ? 1L : 0L;
    }
    if (value instanceof SqlDateTime dateTime) {
      return dateTime.toString();
    }
    return shown(value);
  }

  public static String describe(Object value) {
    if (value instanceof String text) {
      return "string '" + text + "'";
    }
    if (value instanceof SqlDateTime) {
      return "date-time " + value;
    }
    return value instanceof Boolean ? "truth value " + value : "number " + value;
  }

  private static Object numericBoolean(Object value) {
    return value instanceof Boolean truth ? (Object) (truth ? 1L : 0L) : value;
  }

  private static String symbol(Op op) {
    return switch (op) {
      case PLUS -> "+";
      case MINUS -> "-";
      case TIMES -> "*";
      case DIVIDE -> "/";
      default -> op.name();
    };
  }
}
