package io.evenkeel.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL's date functions over DATE and DATETIME values, which are wall-clock times in the request's session time
 * zone (UTC unless it names another; {@code FROM_UNIXTIME} and {@code UNIX_TIMESTAMP} convert): the table's times are
 * epoch milliseconds, so a date comes from {@code FROM_UNIXTIME(created_time / 1000)} or from a string such as
 * '2024-05-01' or '2024-05-01 12:30:00'. A bare number is refused (MySQL would read 20240501 as a date, and an epoch
 * time as nonsense); a string that is no date gives NULL, as in MySQL.
 */
final class DateFunctions {
  private static final Pattern TEXT = Pattern.compile(
      "\\s*(\\d{4})-(\\d{1,2})-(\\d{1,2})(?:[ T](\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:\\.(\\d{1,6}))?)?)?\\s*");

  private DateFunctions() {}

  /** The parts YEAR(x), MONTH(x) and the like read, by the function's name. */
  enum Part {
    YEAR, QUARTER, MONTH, DAYOFMONTH, DAYOFWEEK, WEEKDAY, DAYOFYEAR, HOUR, MINUTE, SECOND;

    /** The part {@code name} names; read for every row, so without {@code valueOf}'s map lookup. */
    static Part named(String name) {
      return switch (name) {
        case "YEAR" -> YEAR;
        case "QUARTER" -> QUARTER;
        case "MONTH" -> MONTH;
        case "DAYOFMONTH" -> DAYOFMONTH;
        case "DAYOFWEEK" -> DAYOFWEEK;
        case "WEEKDAY" -> WEEKDAY;
        case "DAYOFYEAR" -> DAYOFYEAR;
        case "HOUR" -> HOUR;
        case "MINUTE" -> MINUTE;
        case "SECOND" -> SECOND;
        default -> valueOf(name);
      };
    }

    /** Whether this part reads only the time of day (HOUR, MINUTE, SECOND). */
    boolean ofTimeOfDay() {
      return this == HOUR || this == MINUTE || this == SECOND;
    }

    /** A time-of-day part from the second of the day: no date to build. */
    long ofSecondOfDay(long secondOfDay) {
      return switch (this) {
        case HOUR -> secondOfDay / 3_600;
        case MINUTE -> secondOfDay / 60 % 60;
        case SECOND -> secondOfDay % 60;
        default -> throw new IllegalStateException(this + " is not a part of the time of day");
      };
    }

    long of(LocalDateTime t) {
      return switch (this) {
        case YEAR -> t.getYear();
        case QUARTER -> (t.getMonthValue() + 2) / 3;
        case MONTH -> t.getMonthValue();
        case DAYOFMONTH -> t.getDayOfMonth();
        case DAYOFWEEK -> t.getDayOfWeek().getValue() % 7 + 1; // 1 = Sunday
        case WEEKDAY -> t.getDayOfWeek().getValue() - 1; // 0 = Monday
        case DAYOFYEAR -> t.getDayOfYear();
        case HOUR -> t.getHour();
        case MINUTE -> t.getMinute();
        case SECOND -> t.getSecond();
      };
    }
  }

  /** The units of {@code INTERVAL n unit} that DATE_ADD and DATE_SUB take. */
  enum Unit {
    SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR;

    static Unit named(String name) {
      try {
        return valueOf(name.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw ExpressionException.unsupported("INTERVAL ... " + name + " (units are SECOND, MINUTE, HOUR, DAY, WEEK, "
            + "MONTH, QUARTER, YEAR)");
      }
    }

    boolean ofDays() {
      return this != SECOND && this != MINUTE && this != HOUR;
    }

    LocalDateTime add(LocalDateTime t, long n) {
      return switch (this) {
        case SECOND -> t.plusSeconds(n);
        case MINUTE -> t.plusMinutes(n);
        case HOUR -> t.plusHours(n);
        case DAY -> t.plusDays(n);
        case WEEK -> t.plusWeeks(n);
        case MONTH -> t.plusMonths(n); // the 31st plus a month is the month's last day, as in MySQL
        case QUARTER -> t.plusMonths(3 * n);
        case YEAR -> t.plusYears(n);
      };
    }
  }

  /** {@code DATE(x)}, {@code CAST(x AS DATE)}. */
  static Object date(Object value) {
    SqlDateTime t = temporal(value, "DATE");
    return t == null ? null : SqlDateTime.ofDate(t.value().toLocalDate());
  }

  static Object part(Part part, Object value) {
    SqlDateTime t = temporal(value, part.name());
    return t == null ? null : part.of(t.value());
  }

  /** {@code UNIX_TIMESTAMP(x)}: epoch seconds of x's wall-clock time in {@code timeZone}, with x's digits. */
  static Object unixTimestamp(Object value, ZoneId timeZone) {
    SqlDateTime t = temporal(value, "UNIX_TIMESTAMP");
    if (t == null) {
      return null;
    }
    Instant instant = t.value().atZone(timeZone).toInstant();
    if (t.fractionDigits() == 0) {
      return instant.getEpochSecond();
    }
    return BigDecimal.valueOf(instant.getEpochSecond()).add(BigDecimal.valueOf(instant.getNano(), 9))
        .setScale(t.fractionDigits(), RoundingMode.DOWN);
  }

  /** {@code DATE_ADD(x, INTERVAL n unit)} (DATE_SUB negates n): a DATE stays a DATE when whole days are added. */
  static Object add(Object value, Object amount, Unit unit) {
    SqlDateTime t = temporal(value, "DATE_ADD");
    if (t == null || amount == null) {
      return null;
    }
    if (!(MathFunctions.number(amount, "INTERVAL") instanceof Long n)) {
      throw ExpressionException.invalid("INTERVAL takes a whole number; got " + SqlValues.describe(amount));
    }
    LocalDateTime moved = unit.add(t.value(), n);
    return t.dateOnly() && unit.ofDays() ? SqlDateTime.ofDate(moved.toLocalDate())
        : new SqlDateTime(moved, t.fractionDigits());
  }

  /** {@code DATEDIFF(a, b)}: days from b's date to a's. */
  static Object dateDiff(Object a, Object b) {
    SqlDateTime x = temporal(a, "DATEDIFF");
    SqlDateTime y = temporal(b, "DATEDIFF");
    return x == null || y == null ? null : ChronoUnit.DAYS.between(y.value().toLocalDate(), x.value().toLocalDate());
  }

  /** A DATE or DATETIME argument; a string is read as one (NULL where it is none); anything else is a 400. */
  static SqlDateTime temporal(Object value, String function) {
    if (value == null || value instanceof SqlDateTime) {
      return (SqlDateTime) value;
    }
    if (value instanceof String text) {
      return parse(text);
    }
    throw ExpressionException.invalid(function + " needs a date or date-time, such as FROM_UNIXTIME(created_time / 1000) or"
        + " '2024-05-01'; got " + SqlValues.describe(value));
  }

  /** '2024-05-01' (a DATE) or '2024-05-01 12:30[:00[.123]]' (a DATETIME); null for anything else. */
  static SqlDateTime parse(String text) {
    Matcher m = TEXT.matcher(text);
    if (!m.matches()) {
      return null;
    }
    try {
      LocalDateTime t = LocalDateTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
          Integer.parseInt(m.group(3)), m.group(4) == null ? 0 : Integer.parseInt(m.group(4)),
          m.group(5) == null ? 0 : Integer.parseInt(m.group(5)), m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
      if (m.group(4) == null) {
        return SqlDateTime.ofDate(t.toLocalDate());
      }
      String fraction = m.group(7) == null ? "" : m.group(7);
      int nanos = fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "000000000").substring(0, 9));
      return new SqlDateTime(t.withNano(nanos), fraction.length());
    } catch (DateTimeException invalid) {
      return null;
    }
  }
}
