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
