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

  private final Object[] values;
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

  /** Where each of {@code names} stands in a row, for {@link #ofPositions}: resolved once, not for every row. */
  public static int[] positions(List<String> names) {
    int[] positions = new int[names.size()];
    for (int i = 0; i < positions.length; i++) {
      Integer position = INDEX.get(names.get(i));
      if (position == null) {
        throw new IllegalArgumentException("unknown column " + names.get(i));
      }
      positions[i] = position;
    }
    return positions;
  }

  /**
   * A row of which only the columns at {@code positions} are known, {@code known} holding their values in that
   * order; every other column reads as NULL, tenant_id and row_id as 0 unless known.
   */
  public static TableRow ofPositions(int[] positions, Object[] known) {
    Object[] values = new Object[COLUMNS.size()];
    values[0] = 0L;
    values[1] = 0L;
    for (int i = 0; i < positions.length; i++) {
      values[positions[i]] = known[i];
    }
    return new TableRow(values);
  }

  public long tenantId() {
    return (Long) values[0];
  }

  public long rowId() {
    return (Long) values[1];
  }

  @Override
  public Object column(String name) {
    Integer index = INDEX.get(name);
    if (index == null) {
      throw new IllegalArgumentException("unknown column " + name);
    }
    return values[index];
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
