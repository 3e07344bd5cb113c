package io.evenkeel.query.expr;

import io.evenkeel.query.result.QueryException;
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
    return dividend.remainder(divisor).setScale(Math.max(Math.max(dividend.scale(), divisor.scale()), 0));
  }

  static Object abs(Object value) {
    if (value == null) {
      return null;
    }
    value = number(value, "ABS");
    if (value instanceof Long x) {
      if (x == Long.MIN_VALUE) {
        throw QueryException.invalid("BIGINT value is out of range in ABS(" + x + ")");
      }
      return Math.abs(x);
    }
    return ((BigDecimal) value).abs();
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
      throw QueryException.invalid(name + " takes a whole number of digits; got " + SqlValues.describe(digits));
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
      throw QueryException.invalid(function + " needs a number; got " + SqlValues.describe(value));
    }
    return value;
  }
}
