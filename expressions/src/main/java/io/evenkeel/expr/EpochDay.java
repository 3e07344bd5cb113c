package io.evenkeel.expr;

import java.time.Instant;
import java.time.LocalDate;

/**
 * {@code DATE(FROM_UNIXTIME(column / 1000))} in a session time zone of fixed offset: the day of a row's epoch
 * milliseconds by arithmetic, as a number of days since 1970-01-01, without the date-time. The commonest group key of
 * this table's dashboards; a shard groups rows by the number and makes the DATE once per group.
 */
public final class EpochDay {
  /** The day of a time before 1970, when FROM_UNIXTIME is NULL, as in MySQL. */
  public static final long NULL = Long.MIN_VALUE;
  private static final long SECONDS_PER_DAY = 86_400L;

  private final Expr.Column column;
  private final long offsetSeconds;

  private EpochDay(Expr.Column column, long offsetSeconds) {
    this.column = column;
    this.offsetSeconds = offsetSeconds;
  }

  /** {@code expr} as a day of a column's milliseconds for {@code evaluator}'s time zone; null when it is not one. */
  public static EpochDay of(Expr expr, Evaluator evaluator) {
    if (!(expr instanceof Expr.Call date && date.op() == Op.DATE)) {
      return null;
    }
    Expr.Column column = millisColumn(date.args().get(0), evaluator);
    return column == null ? null
        : new EpochDay(column, offsetSeconds(evaluator));
  }

  /**
   * The column whose milliseconds {@code dateTime} shows when it is {@code FROM_UNIXTIME(column / 1000)} in a session
   * time zone of fixed offset (its wall-clock time then follows from them by arithmetic); null otherwise.
   */
  static Expr.Column millisColumn(Expr dateTime, Evaluator evaluator) {
    return evaluator.timeZone().getRules().isFixedOffset() && dateTime instanceof Expr.Call call
        && call.op() == Op.FROM_UNIXTIME && Evaluator.millisOfQuotient(call.args().get(0)) instanceof Expr.Column column
        ? column : null;
  }

  /** The column of milliseconds. */
  public String column() {
    return column.name();
  }

  /** The day of epoch milliseconds {@code millis}; {@link #NULL} before 1970. */
  public long day(long millis) {
    return millis < 0 ? NULL : Math.floorDiv(millis / 1_000 + offsetSeconds, SECONDS_PER_DAY);
  }

  /** The DATE value of {@code day} ({@link #day}); null for {@link #NULL}. */
  public static SqlDateTime date(long day) {
    return day == NULL ? null : SqlDateTime.ofDate(LocalDate.ofEpochDay(day));
  }

  /** The session time zone's offset from UTC, when it is fixed. */
  static long offsetSeconds(Evaluator evaluator) {
    return evaluator.timeZone().getRules().getOffset(Instant.EPOCH).getTotalSeconds();
  }
}
