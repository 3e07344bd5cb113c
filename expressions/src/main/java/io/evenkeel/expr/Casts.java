package io.evenkeel.expr;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code CAST} and {@code CONVERT} with MySQL's conversions: a string is read as the number it starts with ('12ab' is
 * 12, 'ab' is 0), a decimal becomes an integer by rounding half away from zero, a negative integer cast to UNSIGNED
 * wraps around 2^64, a decimal too wide for DECIMAL(p, s) is clamped to its largest value; and every value's text, as
 * CONCAT and CAST(... AS CHAR) write it.
 */
final class Casts {
  private static final BigDecimal TWO_TO_64 = new BigDecimal(BigInteger.ONE.shiftLeft(64));
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
  /** The number a string starts with, after leading spaces: MySQL's string-to-number reading. */
  private static final Pattern LEADING_NUMBER = Pattern.compile("^\\s*([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))");
  private static final DateTimeFormatter DIGITS = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

  private Casts() {}

  /**
   * {@code CAST(value AS DATETIME(digits))}: a date, date-time or date string as a DATETIME, its fraction of a second
   * cut to {@code digits} digits as MariaDB cuts it (MySQL 8 would round); NULL for a string that is no date.
   */
  static Object dateTime(Object value, long digits) {
    SqlDateTime t = DateFunctions.temporal(value, "CAST(... AS DATETIME)");
    if (t == null) {
      return null;
    }
    long unit = (long) Math.pow(10, 9 - digits);
    long nanos = t.value().getNano();
    return new SqlDateTime(t.value().withNano((int) (nanos / unit * unit)), (int) digits);
  }

  /** {@code CAST(value AS SIGNED)}. */
  static Object signed(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof String text) {
      // MySQL reads the integer a string starts with: '12.7' is 12.
      return clamp(leadingNumber(text).setScale(0, RoundingMode.DOWN));
    }
    BigDecimal exact = exact(value);
    BigDecimal whole = exact.setScale(0, RoundingMode.HALF_UP);
    if (whole.compareTo(LONG_MIN) < 0 || whole.compareTo(LONG_MAX) > 0) {
      throw ExpressionException.invalid("BIGINT value is out of range in CAST(" + exact.toPlainString() + " AS SIGNED)");
    }
    return whole.longValueExact();
  }

  /** {@code CAST(value AS UNSIGNED)}: negative integers wrap around 2^64, as in MySQL. */
  static Object unsigned(Object value) {
    if (value == null) {
      return null;
    }
    BigDecimal whole = value instanceof String text ? leadingNumber(text).setScale(0, RoundingMode.DOWN)
        : exact(value).setScale(0, RoundingMode.HALF_UP);
    if (whole.signum() < 0) {
      whole = whole.compareTo(LONG_MIN) < 0 ? BigDecimal.ZERO : whole.add(TWO_TO_64);
    } else if (whole.compareTo(TWO_TO_64) >= 0) {
      whole = TWO_TO_64.subtract(BigDecimal.ONE);
    }
    return SqlValues.integer(whole);
  }

  /** {@code CAST(value AS DECIMAL(precision, scale))}: rounded to the scale, clamped to what the precision holds. */
  static Object decimal(Object value, int precision, int scale) {
    if (value == null) {
      return null;
    }
    BigDecimal exact = value instanceof String text ? leadingNumber(text) : exact(value);
    BigDecimal rounded = exact.setScale(scale, RoundingMode.HALF_UP);
    BigDecimal largest = BigDecimal.TEN.pow(precision - scale).subtract(BigDecimal.ONE.movePointLeft(scale))
        .setScale(scale, RoundingMode.UNNECESSARY);
    if (rounded.abs().compareTo(largest) > 0) {
      return rounded.signum() < 0 ? largest.negate() : largest;
    }
    return rounded;
  }

  /** {@code CAST(value AS CHAR(length))}: the value's text, cut to {@code length} characters (null: no limit). */
  static Object chars(Object value, Long length) {
    if (value == null) {
      return null;
    }
    String text = text(value);
    if (length != null && text.codePointCount(0, text.length()) > length) {
      return text.substring(0, text.offsetByCodePoints(0, (int) Math.max(0, length)));
    }
    return text;
  }

  /** A value's text as MySQL writes it: decimals with their scale, TRUE as 1, date-times as 'YYYY-MM-DD hh:mm:ss'. */
  static String text(Object value) {
    if (value instanceof String text) {
      return text;
    }
    if (value instanceof BigDecimal decimal) {
      return ((BigDecimal) SqlValues.shown(decimal)).toPlainString();
    }
    if (value instanceof Boolean truth) {
      return truth ? "1" : "0";
    }
    return value.toString();
  }

  private static BigDecimal exact(Object value) {
    if (value instanceof Boolean truth) {
      return truth ? BigDecimal.ONE : BigDecimal.ZERO;
    }
    if (value instanceof SqlDateTime dateTime) {
      // MySQL reads a DATETIME as the number YYYYMMDDhhmmss.
      return new BigDecimal(DIGITS.format(dateTime.value()));
    }
    return SqlValues.decimal(value);
  }

  private static BigDecimal leadingNumber(String text) {
    Matcher number = LEADING_NUMBER.matcher(text);
    return number.find() ? new BigDecimal(number.group(1)) : BigDecimal.ZERO;
  }

  private static Object clamp(BigDecimal whole) {
    return whole.compareTo(LONG_MIN) < 0 ? Long.MIN_VALUE : whole.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE
        : whole.longValueExact();
  }
}
