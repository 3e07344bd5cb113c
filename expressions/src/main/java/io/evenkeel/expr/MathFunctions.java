package io.evenkeel.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * MySQL's numeric functions on exact values: integers stay BIGINT where MySQL keeps them so, decimals keep their
 * digits, halves round away from zero. NULL in gives NULL out; a string is not silently read as a number (a 400).
 */
final class MathFunctions {
  private MathFunctions() {}

  /** {@code a % b}, {@code MOD(a, b)}: the remainder with the dividend's sign; NULL for a zero divisor. */
  static Object mod(Object a, Object b) {
    if (a == null || b == null) {
      return null;
    }
    a = number(a, "%");
    b = number(b, "%");
    if (a instanceof Long x && b instanceof Long y) {
      return y == 0 ? null : x % y;
    }
    BigDecimal divisor = SqlValues.decimal(b);
    if (divisor.signum() == 0) {
      return null;
    }
    BigDecimal dividend = SqlValues.decimal(a);
    BigDecimal remainder = dividend.remainder(divisor)
        .setScale(Math.max(Math.max(dividend.scale(), divisor.scale()), 0));
    return SqlDecimal.of(remainder, Math.max(SqlValues.shownScale(dividend), SqlValues.shownScale(divisor)));
  }

  /** {@code a DIV b}: the quotient's integer part (toward zero), BIGINT; NULL for a zero divisor. */
  static Object div(Object a, Object b) {
    if (a == null || b == null) {
      return null;
    }
    a = number(a, "DIV");
    b = number(b, "DIV");
    if (a instanceof Long x && b instanceof Long y) {
      if (y == 0) {
        return null;
      }
      if (x == Long.MIN_VALUE && y == -1) {
        throw ExpressionException.invalid("BIGINT value is out of range in (" + x + " DIV " + y + ")");
      }
      return x / y;
    }
    BigDecimal divisor = SqlValues.decimal(b);
    if (divisor.signum() == 0) {
      return null;
    }
    BigDecimal quotient = SqlValues.decimal(a).divideToIntegralValue(divisor);
    if (quotient.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw ExpressionException.invalid("BIGINT value is out of range in (" + a + " DIV " + b + ")");
    }
    return quotient.longValue();
  }

  /**
   * {@code POW(x, y)} and {@code SQRT(x)} ({@code y} null): computed as MySQL does, in doubles, and answered as the
   * decimal of the double's shortest text (so POW(2, 3) is 8 and SQRT(2) 1.4142135623730951); NULL where the result
   * is not a number (SQRT(-1)), a 400 where it overflows.
   */
  static Object power(Object x, Object y, boolean squareRoot) {
    String name = squareRoot ? "SQRT" : "POW";
    if (x == null || (!squareRoot && y == null)) {
      return null;
    }
    double base = SqlValues.decimal(number(x, name)).doubleValue();
    double result = squareRoot ? Math.sqrt(base) : Math.pow(base, SqlValues.decimal(number(y, name)).doubleValue());
    if (Double.isNaN(result)) {
      return null;
    }
    if (Double.isInfinite(result)) {
      throw ExpressionException.invalid("DOUBLE value is out of range in " + name + "(" + x + (squareRoot ? "" : ", " + y)
          + ")");
    }
    BigDecimal exact = BigDecimal.valueOf(result).stripTrailingZeros();
    return exact.scale() < 0 ? exact.setScale(0) : exact;
  }

  static Object abs(Object value) {
    if (value == null) {
      return null;
    }
    value = number(value, "ABS");
    if (value instanceof Long x) {
      if (x == Long.MIN_VALUE) {
        throw ExpressionException.invalid("BIGINT value is out of range in ABS(" + x + ")");
      }
      return Math.abs(x);
    }
    BigDecimal decimal = (BigDecimal) value;
    return SqlDecimal.of(decimal.abs(), SqlValues.shownScale(decimal));
  }

  static Object sign(Object value) {
    if (value == null) {
      return null;
    }
    return (long) SqlValues.decimal(number(value, "SIGN")).signum();
  }

  /** {@code FLOOR} ({@code down} true) or {@code CEIL}: an integer, BIGINT where it fits. */
  static Object floorOrCeil(Object value, boolean down) {
    if (value == null) {
      return null;
    }
    value = number(value, down ? "FLOOR" : "CEIL");
    if (value instanceof Long) {
      return value;
    }
    return SqlValues.integer(((BigDecimal) value).setScale(0, down ? RoundingMode.FLOOR : RoundingMode.CEILING));
  }

  /**
   * {@code ROUND(x, d)} ({@code HALF_UP}: halves away from zero, as MySQL rounds exact values) or {@code TRUNCATE(x,
   * d)} ({@code DOWN}): {@code d} digits after the point, or to a power of ten before it where {@code d} is negative.
   */
  static Object round(Object value, Object digits, RoundingMode mode, String name) {
    if (value == null || digits == null) {
      return null;
    }
    value = number(value, name);
    if (!(number(digits, name) instanceof Long places)) {
      throw ExpressionException.invalid(name + " takes a whole number of digits; got " + SqlValues.describe(digits));
    }
    int scale = (int) Math.max(-SqlValues.MAX_DECIMAL_PRECISION, Math.min(SqlValues.MAX_DECIMAL_SCALE, places));
    if (value instanceof Long x) {
      if (scale >= 0) {
        return x;
      }
      value = BigDecimal.valueOf(x);
    }
    BigDecimal rounded = ((BigDecimal) value).setScale(scale, mode);
    return scale >= 0 ? rounded : SqlValues.integer(rounded.setScale(0, RoundingMode.UNNECESSARY));
  }

  /** A number argument, TRUE and FALSE as 1 and 0; anything else is a 400 naming the function. */
  static Object number(Object value, String function) {
    if (value instanceof Boolean truth) {
      return truth ? 1L : 0L;
    }
    if (!SqlValues.isNumber(value)) {
      throw ExpressionException.invalid(function + " needs a number; got " + SqlValues.describe(value));
    }
    return value;
  }
}
