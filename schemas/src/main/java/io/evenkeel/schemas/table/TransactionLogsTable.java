package io.evenkeel.schemas.table;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The columns of the one logical table, in schema order ({@code SELECT *} order), shared by the shard servers (index
 * layout) and the query service (SQL types). Names match the fields of the Avro {@code TransactionLogChange}.
 */
public final class TransactionLogsTable {
  public static final String NAME = "transaction_logs";

  /** Fractional digits of {@code price}, as in the Avro decimal(18, 2). */
  public static final int PRICE_SCALE = 2;

  /** Digits of {@code price} in all, as in the Avro decimal(18, 2): its unscaled value fits a long. */
  public static final int PRICE_PRECISION = 18;

  /** UTF-8 bytes of a keyword value, or of one attribute {@code key:value}: Lucene's limit for a term. */
  public static final int MAX_KEYWORD_BYTES = 32_766;

  /** UTF-8 bytes of {@code title} or of all {@code attributes}. */
  public static final int MAX_TEXT_BYTES = 1024 * 1024;

  /** The latest time a row may carry, 9999-12-31T23:59:59.999Z (MySQL's largest DATETIME). */
  public static final long MAX_TIME = 253_402_300_799_999L;

  public static final List<Column> COLUMNS = List.of(
      new Column("tenant_id", ColumnType.LONG, false),
      new Column("row_id", ColumnType.LONG, false),
      new Column("created_time", ColumnType.LONG, false),
      new Column("modified_time", ColumnType.LONG, false),
      new Column("status", ColumnType.INT, true),
      new Column("buyer_id", ColumnType.LONG, true),
      new Column("seller_nick", ColumnType.KEYWORD, true),
      new Column("buyer_nick", ColumnType.KEYWORD, true),
      new Column("title", ColumnType.TEXT, true),
      new Column("price", ColumnType.DECIMAL, true),
      new Column("quantity", ColumnType.INT, true),
      new Column("group_id", ColumnType.LONG, true),
      new Column("attributes", ColumnType.ATTRIBUTES, true));

  private static final Map<String, Column> BY_NAME = new LinkedHashMap<>();

  static {
    COLUMNS.forEach(c -> BY_NAME.put(c.name(), c));
  }

  private TransactionLogsTable() {}

  public static Optional<Column> column(String name) {
    return Optional.ofNullable(BY_NAME.get(name));
  }

  /** The column, or an exception naming the unknown name and the known ones. */
  public static Column require(String name) {
    Column column = BY_NAME.get(name);
    if (column == null) {
      throw new IllegalArgumentException("unknown column '" + name + "' of " + NAME + "; columns are " + BY_NAME.keySet());
    }
    return column;
  }
}
