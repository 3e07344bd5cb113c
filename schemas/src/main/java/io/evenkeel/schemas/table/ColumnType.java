package io.evenkeel.schemas.table;

/** How a column of {@code transaction_logs} is typed, indexed and compared. */
public enum ColumnType {
  /** 64-bit integer: points for ranges, doc values for sort, scan and aggregates. */
  LONG,
  /** 32-bit integer, indexed like {@link #LONG}. */
  INT,
  /** Exact decimal with {@link TransactionLogsTable#PRICE_SCALE} fractional digits, indexed as its unscaled long. */
  DECIMAL,
  /** A string compared as a whole, case-sensitively by code point (a binary collation). */
  KEYWORD,
  /** Full text: analyzed into words, matched by {@code MATCH ... AGAINST}; not sortable. */
  TEXT,
  /** The free-form {@code key:value;...} string, stored with the row; hot keys get their own fields. */
  ATTRIBUTES
}
