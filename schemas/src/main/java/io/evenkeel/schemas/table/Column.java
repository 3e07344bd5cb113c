package io.evenkeel.schemas.table;

/**
 * One column of {@code transaction_logs}.
 *
 * @param name the SQL and Avro field name
 * @param nullable false for the keys and times every change carries
 */
public record Column(String name, ColumnType type, boolean nullable) {
  /** Numeric columns are stored in doc values and points as longs (decimals unscaled). */
  public boolean isNumeric() {
    return type == ColumnType.LONG || type == ColumnType.INT || type == ColumnType.DECIMAL;
  }

  /** Whether rows can be sorted and grouped by it through doc values. */
  public boolean hasDocValues() {
    return isNumeric() || type == ColumnType.KEYWORD;
  }
}
