package io.evenkeel.expr;

import io.evenkeel.schemas.shard.DateTimeValue;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;

/**
 * A SQL value ({@code null}, Long, BigDecimal, {@link SqlDecimal}, String, Boolean, {@link SqlDateTime}) in its wire
 * form ({@link Value}) and back, so that what a shard computes from an expression reaches the service with its type:
 * a DATE key stays a DATE, a truth value a truth value, a quotient keeps its hidden digits.
 */
public final class SqlValueCodec {
  private SqlValueCodec() {}

  /** Whether {@code value} is of a kind {@link #encode} takes. */
  public static boolean encodable(Object value) {
    return value == null || value instanceof Long || value instanceof BigDecimal || value instanceof String
        || value instanceof Boolean || value instanceof SqlDateTime;
  }

  public static Value encode(Object value) {
    Value.Builder wire = Value.newBuilder();
    if (value == null) {
      wire.setNullValue(true);
    } else if (value instanceof Long number) {
      wire.setLongValue(number);
    } else if (value instanceof SqlDecimal hidden) {
      wire.setDecimalValue(hidden.toString()).setShownScale(hidden.shownScale());
    } else if (value instanceof BigDecimal decimal) {
      wire.setDecimalValue(decimal.toString());
    } else if (value instanceof String text) {
      wire.setStringValue(text);
    } else if (value instanceof Boolean truth) {
      wire.setTruthValue(truth);
    } else if (value instanceof SqlDateTime dateTime) {
      wire.setDateTimeValue(DateTimeValue.newBuilder().setLocal(dateTime.value().toString())
          .setFractionDigits(dateTime.fractionDigits()).setDateOnly(dateTime.dateOnly()));
    } else {
      throw new IllegalArgumentException("no wire form for the value " + value + " (" + value.getClass() + ")");
    }
    return wire.build();
  }

  /**
   * The value {@code wire} holds (a double as the exact decimal of its shortest text); an IllegalArgumentException
   * naming what is wrong with a malformed one.
   */
  public static Object decode(Value wire) {
    return switch (wire.getKindCase()) {
      case LONG_VALUE -> wire.getLongValue();
      case STRING_VALUE -> wire.getStringValue();
      case DECIMAL_VALUE -> {
        try {
          BigDecimal decimal = new BigDecimal(wire.getDecimalValue());
          yield wire.hasShownScale() ? SqlDecimal.of(decimal, Math.max(0, wire.getShownScale())) : decimal;
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("a decimal value that is none: " + wire.getDecimalValue());
        }
      }
      case DOUBLE_VALUE -> BigDecimal.valueOf(wire.getDoubleValue());
      case TRUTH_VALUE -> wire.getTruthValue();
      case DATE_TIME_VALUE -> {
        DateTimeValue dateTime = wire.getDateTimeValue();
        try {
          yield new SqlDateTime(LocalDateTime.parse(dateTime.getLocal()), dateTime.getFractionDigits(),
              dateTime.getDateOnly());
        } catch (DateTimeParseException e) {
          throw new IllegalArgumentException("a date-time value that is none: " + dateTime.getLocal());
        }
      }
      case NULL_VALUE, KIND_NOT_SET -> null;
    };
  }
}
