package io.evenkeel.query.merge;

import io.evenkeel.expr.SqlValues;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;
import java.util.List;

/** The order every shard and the merger share: NULL lowest (first ascending, last descending), then by value. */
public final class ValueOrder {
  private ValueOrder() {}

  /** Compares two values of one column or expression; NULL is lower than any value. */
  public static int compare(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return SqlValues.compare(a, b);
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

  /** A shard's value as the service's: Long, BigDecimal, String or null. */
  public static Object fromShard(Value value) {
    return switch (value.getKindCase()) {
      case LONG_VALUE -> value.getLongValue();
      case STRING_VALUE -> value.getStringValue();
      case DECIMAL_VALUE -> new BigDecimal(value.getDecimalValue());
      case DOUBLE_VALUE -> BigDecimal.valueOf(value.getDoubleValue());
      case NULL_VALUE, KIND_NOT_SET -> null;
    };
  }
}
