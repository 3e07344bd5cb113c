package io.evenkeel.query.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Query answers as comparable text: the reference database's rows and the query service's JSON rows alike, numbers
 * without trailing zeros, strings quoted, NULL as NULL.
 */
public final class ResultRows {
  /** An order for answers whose row order does not count. */
  public static final Comparator<List<String>> ORDER = (a, b) -> String.join("\u0000", a)
      .compareTo(String.join("\u0000", b));

  private ResultRows() {}

  /** The reference database's rows ({@link ReferenceDatabase#query}). */
  public static List<List<String>> of(List<List<Object>> rows) {
    List<List<String>> result = new ArrayList<>();
    for (List<Object> row : rows) {
      List<String> values = new ArrayList<>();
      row.forEach(value -> values.add(text(value)));
      result.add(values);
    }
    return result;
  }

  /** The query service's {@code rows}. */
  public static List<List<String>> of(JsonNode rows) {
    List<List<String>> result = new ArrayList<>();
    for (JsonNode row : rows) {
      List<String> values = new ArrayList<>();
      row.forEach(value -> values.add(value.isNull() ? "NULL" : value.isNumber()
          ? text(value.decimalValue()) : text(value.asText())));
      result.add(values);
    }
    return result;
  }

  private static String text(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.signum() == 0 ? "0" : decimal.stripTrailingZeros().toPlainString();
    }
    if (value instanceof Long number) {
      return number.toString();
    }
    return "'" + value + "'";
  }

  /** The first rows, for a message. */
  public static String head(List<List<String>> rows) {
    return rows.size() <= 6 ? rows.toString() : rows.subList(0, 6) + "...";
  }
}
