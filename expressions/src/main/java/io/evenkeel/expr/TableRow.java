package io.evenkeel.expr;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of {@code transaction_logs} as the service evaluates it: integers as Long, price as BigDecimal, strings as
 * String, NULL as null. Attributes are parsed on first use: pairs split on ';', each on its first ':'; the first
 * occurrence of a key wins.
 */
public final class TableRow implements Env {
  private static final List<Column> COLUMNS = TransactionLogsTable.COLUMNS;
  private static final Map<String, Integer> INDEX = new HashMap<>();

  static {
    for (int i = 0; i < COLUMNS.size(); i++) {
      INDEX.put(COLUMNS.get(i).name(), i);
    }
  }

  /** In {@link #values}: the column holds the integer in {@link #integers} (set without boxing). */
  private static final Object INTEGER = new Object();

  private final Object[] values;
  /** Integers set by {@link #setInteger}; null until the first. */
  private long[] integers;
  private Map<String, String> attributes;

  private TableRow(Object[] values) {
    this.values = values;
  }

  public static TableRow of(TransactionLogChange change) {
    Object[] values = new Object[COLUMNS.size()];
    for (int i = 0; i < values.length; i++) {
      Object value = change.get(COLUMNS.get(i).name());
      values[i] = value instanceof Integer number ? (Object) number.longValue()
          : value instanceof CharSequence text ? text.toString() : value;
    }
    return new TableRow(values);
  }

  /** A row of which only {@code names} are known (a covered projection); every other column reads as NULL. */
  public static TableRow ofColumns(long tenantId, long rowId, List<String> names, List<Object> known) {
    Object[] values = new Object[COLUMNS.size()];
    values[INDEX.get("tenant_id")] = tenantId;
    values[INDEX.get("row_id")] = rowId;
    for (int i = 0; i < names.size(); i++) {
      values[INDEX.get(names.get(i))] = known.get(i);
    }
    return new TableRow(values);
  }

  /** Where column {@code name} stands in a row; -1 when the table has no such column. */
  public static int positionOf(String name) {
    Integer position = INDEX.get(name);
    return position == null ? -1 : position;
  }

  /**
   * A row of which no column is known yet: every column reads as NULL, tenant_id and row_id as 0, until {@link #set}.
   * One such row serves many in turn (a segment's rows read from doc values, each evaluated and then left), so none
   * is allocated per row.
   */
  public static TableRow blank() {
    Object[] values = new Object[COLUMNS.size()];
    values[0] = 0L;
    values[1] = 0L;
    return new TableRow(values);
  }

  /** Sets the column at {@code position} ({@link #positionOf}) to {@code value}; null is NULL. */
  public void set(int position, Object value) {
    values[position] = value;
    attributes = null; // parsed again from the new value when read
  }

  /** Sets an integer column without boxing it: a row read for many rows in turn allocates nothing per value. */
  public void setInteger(int position, long value) {
    if (integers == null) {
      integers = new long[values.length];
    }
    integers[position] = value;
    values[position] = INTEGER;
  }

  /** Whether the column at {@code position} holds an integer, which {@link #integerAt} then reads unboxed. */
  public boolean isInteger(int position) {
    return values[position] == INTEGER || values[position] instanceof Long;
  }

  public long integerAt(int position) {
    return values[position] == INTEGER ? integers[position] : (Long) values[position];
  }

  public long tenantId() {
    return integerAt(0);
  }

  public long rowId() {
    return integerAt(1);
  }

  @Override
  public Object column(String name) {
    Integer index = INDEX.get(name);
    if (index == null) {
      throw new IllegalArgumentException("unknown column " + name);
    }
    return value(index);
  }

  @Override
  public Object column(Expr.Column column) {
    return column.position() >= 0 ? value(column.position()) : column(column.name());
  }

  private Object value(int position) {
    Object value = values[position];
    return value == INTEGER ? (Object) integers[position] : value;
  }

  @Override
  public Object attr(String key) {
    if (attributes == null) {
      attributes = parseAttributes((String) column("attributes"));
    }
    return attributes.get(key);
  }

  /** {@code "color:red;size:M"} to {color=red, size=M}; pairs without ':' are skipped. */
  public static Map<String, String> parseAttributes(String text) {
    Map<String, String> pairs = new HashMap<>();
    if (text == null) {
      return pairs;
    }
    for (String pair : text.split(";")) {
      int colon = pair.indexOf(':');
      if (colon > 0) {
        pairs.putIfAbsent(pair.substring(0, colon), pair.substring(colon + 1));
      }
    }
    return pairs;
  }
}
