package io.evenkeel.query.normalize;

import io.evenkeel.expr.SqlValues;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/** Helpers for the constants in predicates. */
public final class Values {
  private Values() {}

  /** Ascending, without duplicates (1 and 1.0 are the same number). */
  static List<Object> sortedDistinct(List<Object> values) {
    List<Object> sorted = new ArrayList<>(values);
    sorted.sort(SqlValues::compare);
    List<Object> distinct = new ArrayList<>();
    for (Object value : sorted) {
      if (distinct.isEmpty() || SqlValues.compare(distinct.get(distinct.size() - 1), value) != 0) {
        distinct.add(value);
      }
    }
    return distinct;
  }

  /** The smallest long >= value (> when exclusive), saturating; for integer columns' inclusive bounds. */
  public static long ceilLong(Object value, boolean inclusive) {
    BigDecimal exact = SqlValues.decimal(value);
    BigDecimal ceil = exact.setScale(0, RoundingMode.CEILING);
    if (!inclusive && ceil.compareTo(exact) == 0) {
      ceil = ceil.add(BigDecimal.ONE);
    }
    return saturate(ceil);
  }

  /** The largest long <= value (< when exclusive), saturating. */
  public static long floorLong(Object value, boolean inclusive) {
    BigDecimal exact = SqlValues.decimal(value);
    BigDecimal floor = exact.setScale(0, RoundingMode.FLOOR);
    if (!inclusive && floor.compareTo(exact) == 0) {
      floor = floor.subtract(BigDecimal.ONE);
    }
    return saturate(floor);
  }

  private static long saturate(BigDecimal value) {
    if (value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      return Long.MAX_VALUE;
    }
    if (value.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
      return Long.MIN_VALUE;
    }
    return value.longValueExact();
  }
}
