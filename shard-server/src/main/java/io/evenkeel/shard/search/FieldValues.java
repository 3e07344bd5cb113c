package io.evenkeel.shard.search;

import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/** Conversions between query {@link Value}s and what the index holds for a column. */
final class FieldValues {
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigDecimal PRICE_UNIT = BigDecimal.ONE.scaleByPowerOfTen(TransactionLogsTable.PRICE_SCALE);

  private FieldValues() {}

  /**
   * A filter value for a numeric column in index units (decimals unscaled), exactly; it may have a fraction when it
   * lies between two storable values.
   */
  static BigDecimal numeric(Column column, Value value) {
    BigDecimal number = switch (value.getKindCase()) {
      case LONG_VALUE -> BigDecimal.valueOf(value.getLongValue());
      case DECIMAL_VALUE -> parseDecimal(column, value.getDecimalValue());
      case DOUBLE_VALUE -> BigDecimal.valueOf(value.getDoubleValue());
      case STRING_VALUE -> parseDecimal(column, value.getStringValue());
      default -> throw new IllegalArgumentException(
          "column " + column.name() + " is " + column.type() + "; a filter value must be a number, got " + describe(value));
    };
    return column.type() == ColumnType.DECIMAL ? number.multiply(PRICE_UNIT) : number;
  }

  /** The smallest storable long >= {@code value} (or > it, when exclusive); null when none exists. */
  static Long lowerBound(BigDecimal value, boolean inclusive) {
    BigDecimal ceil = value.setScale(0, RoundingMode.CEILING);
    if (!inclusive && ceil.compareTo(value) == 0) {
      ceil = ceil.add(BigDecimal.ONE);
    }
    BigInteger bound = ceil.toBigInteger();
    return bound.compareTo(MAX) > 0 ? null : bound.max(MIN).longValue();
  }

  /** The largest storable long <= {@code value} (or < it, when exclusive); null when none exists. */
  static Long upperBound(BigDecimal value, boolean inclusive) {
    BigDecimal floor = value.setScale(0, RoundingMode.FLOOR);
    if (!inclusive && floor.compareTo(value) == 0) {
      floor = floor.subtract(BigDecimal.ONE);
    }
    BigInteger bound = floor.toBigInteger();
    return bound.compareTo(MIN) < 0 ? null : bound.min(MAX).longValue();
  }

  /** {@code value} as a long, or null when no stored long equals it (a fraction, or out of range). */
  static Long exact(BigDecimal value) {
    try {
      return value.longValueExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  static String keyword(Column column, Value value) {
    if (value.getKindCase() != Value.KindCase.STRING_VALUE) {
      throw new IllegalArgumentException("column " + column.name() + " is " + column.type()
          + "; a filter value must be a string, got " + describe(value));
    }
    return value.getStringValue();
  }

  /**
   * A doc value ({@link ColumnReader}) as the row holds it in SQL: a Long, a String, a DECIMAL as a BigDecimal of the
   * column's scale, or null.
   */
  static Object sqlValue(Column column, Object stored) {
    if (stored instanceof Long number && column.type() == ColumnType.DECIMAL) {
      return BigDecimal.valueOf(number, TransactionLogsTable.PRICE_SCALE);
    }
    return stored;
  }

  static Value toValue(Column column, Object stored) {
    if (stored == null) {
      return Value.newBuilder().setNullValue(true).build();
    }
    if (stored instanceof String text) {
      return Value.newBuilder().setStringValue(text).build();
    }
    if (stored instanceof BigInteger big) {
      return column.type() == ColumnType.DECIMAL
          ? Value.newBuilder().setDecimalValue(new BigDecimal(big, TransactionLogsTable.PRICE_SCALE).toPlainString()).build()
          : Value.newBuilder().setDecimalValue(big.toString()).build();
    }
    long number = (Long) stored;
    return column.type() == ColumnType.DECIMAL
        ? Value.newBuilder().setDecimalValue(BigDecimal.valueOf(number, TransactionLogsTable.PRICE_SCALE).toPlainString()).build()
        : Value.newBuilder().setLongValue(number).build();
  }

  static String describe(Value value) {
    return switch (value.getKindCase()) {
      case LONG_VALUE -> "long " + value.getLongValue();
      case STRING_VALUE -> "string '" + value.getStringValue() + "'";
      case DECIMAL_VALUE -> "decimal " + value.getDecimalValue();
      case DOUBLE_VALUE -> "double " + value.getDoubleValue();
      case TRUTH_VALUE -> "truth value " + value.getTruthValue();
      case DATE_TIME_VALUE -> "date-time " + value.getDateTimeValue().getLocal();
      case NULL_VALUE -> "NULL";
      case KIND_NOT_SET -> "no value";
    };
  }

  private static BigDecimal parseDecimal(Column column, String text) {
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "column " + column.name() + " is " + column.type() + "; '" + text + "' is not a number");
    }
  }
}
