package io.evenkeel.query.merge;

import io.evenkeel.expr.SqlValues;
import java.util.List;

/** The order every shard and the merger share: NULL lowest (first ascending, last descending), then by value. */
public final class ValueOrder {
  private ValueOrder() {}

  /** Compares two values of one column or expression; NULL is lower than any value. */
  public static int compare(Object a, Object b) {
    return SqlValues.compareNullsLowest(a, b);
  }

  /** Compares key lists position by position, each ascending or descending. */
  public static int compareKeys(List<Object> a, List<Object> b, boolean[] descending) {
    for (int i = 0; i < a.size(); i++) {
      int sign = compare(a.get(i), b.get(i));
      if (sign != 0) {
        return descending != null && descending[i] ? -sign : sign;
      }
    }
    return 0;
  }
}
