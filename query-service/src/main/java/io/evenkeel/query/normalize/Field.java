package io.evenkeel.query.normalize;

import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;

/** What a predicate tests: a column, or one attribute key ({@code attr('key')}, a string). */
public record Field(String column, String attributeKey) {
  public static Field column(String name) {
    return new Field(name, null);
  }

  public static Field attribute(String key) {
    return new Field("attributes", key);
  }

  public boolean isAttribute() {
    return attributeKey != null;
  }

  /** The column's type; an attribute's value is a keyword. */
  public ColumnType type() {
    return isAttribute() ? ColumnType.KEYWORD : TransactionLogsTable.require(column).type();
  }

  public Column tableColumn() {
    return TransactionLogsTable.require(column);
  }

  /** The shard index field: the column's name, or {@code attr.<key>} for a hot attribute key. */
  public String indexField() {
    return isAttribute() ? "attr." + attributeKey : column;
  }

  @Override
  public String toString() {
    return isAttribute() ? "attr('" + attributeKey + "')" : column;
  }
}
