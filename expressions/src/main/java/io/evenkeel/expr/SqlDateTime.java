package io.evenkeel.expr;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * A DATETIME value (wall-clock time in the session time zone) with the number of fractional-second digits MySQL would show, as {@code
 * FROM_UNIXTIME(created_time / 1000)} gives four; or a DATE ({@code dateOnly}: midnight, shown without a time), which
 * compares with a DATETIME as that midnight, as in MySQL.
 */
public record SqlDateTime(LocalDateTime value, int fractionDigits, boolean dateOnly)
    implements Comparable<SqlDateTime> {
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  public SqlDateTime(LocalDateTime value, int fractionDigits) {
    this(value, fractionDigits, false);
  }

  public static SqlDateTime ofDate(LocalDate date) {
    return new SqlDateTime(date.atStartOfDay(), 0, true);
  }

  @Override
  public int compareTo(SqlDateTime other) {
    return value.compareTo(other.value);
  }

  /** "2024-05-01 12:00:00.1230" as MySQL prints it. */
  @Override
  public String toString() {
    if (dateOnly) {
      return value.toLocalDate().toString();
    }
    String text = SECONDS.format(value);
    if (fractionDigits == 0) {
      return text;
    }
    String nanos = String.format("%09d", value.getNano());
    return text + "." + nanos.substring(0, fractionDigits);
  }
}
