package io.evenkeel.shard.search;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.ExpressionException;
import io.evenkeel.expr.SessionTimeZone;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the row conditions of one query share: its session time zone, and the characters of text their functions
 * may build over every row they test (CONCAT, LPAD, ...), which bounds the work a hostile condition can make a
 * shard do. One instance per query; compared by identity.
 */
final class RowConditions {
  private final ZoneId timeZone;
  private final long maxBuiltChars;
  private final AtomicLong builtChars = new AtomicLong();

  /** @param maxBuiltChars 0 for no bound but each value's */
  RowConditions(ZoneId timeZone, long maxBuiltChars) {
    this.timeZone = timeZone;
    this.maxBuiltChars = maxBuiltChars;
  }

  /** The settings of a query: its time zone (empty: UTC) and its bound on built text. */
  static RowConditions of(io.evenkeel.schemas.shard.Query request) {
    return new RowConditions(request.getTimeZone().isEmpty() ? SessionTimeZone.DEFAULT
        : SessionTimeZone.parse(request.getTimeZone()), request.getMaxBuiltTextChars());
  }

  /** UTC and no bound: for filters without a query around them. */
  static RowConditions unbounded() {
    return new RowConditions(SessionTimeZone.DEFAULT, 0);
  }

  /** An evaluator for one segment's rows: its own caches, the query's time zone and text bound. */
  Evaluator evaluator() {
    return new Evaluator(this::charge, timeZone);
  }

  private void charge(long chars, String function) {
    if (maxBuiltChars > 0 && builtChars.addAndGet(chars) > maxBuiltChars) {
      throw ExpressionException.invalid("text built by " + function + " passes the query's " + maxBuiltChars
          + " characters (its memory budget) over the rows it tests; narrow the WHERE clause");
    }
  }
}
