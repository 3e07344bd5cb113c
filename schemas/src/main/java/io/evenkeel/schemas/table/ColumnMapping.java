package io.evenkeel.schemas.table;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which column of a source table (captured by CDC) feeds each column of {@code transaction_logs}: a column not
 * mapped is fed by the source column of its own name, if the table has one. Written {@code
 * tenant_id=seller_id,row_id=order_id,created_time=created_at}.
 */
public final class ColumnMapping implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The columns routing needs: a source table must feed them. */
  public static final List<String> REQUIRED = List.of("tenant_id", "row_id", "created_time");

  private final Map<String, String> explicit;

  private ColumnMapping(Map<String, String> explicit) {
    this.explicit = explicit;
  }

  /** Every column fed by the source column of its own name. */
  public static ColumnMapping identity() {
    return new ColumnMapping(Map.of());
  }

  /**
   * Parses {@code evenkeel_column=source_column,...} (blank: identity). Throws {@link IllegalArgumentException} for an
   * unknown Evenkeel column, a column mapped twice, or a malformed pair.
   */
  public static ColumnMapping parse(String spec) {
    Map<String, String> explicit = new LinkedHashMap<>();
    if (spec != null && !spec.isBlank()) {
      for (String pair : spec.split(",")) {
        String[] parts = pair.split("=", -1);
        if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
          throw new IllegalArgumentException("a column mapping is evenkeel_column=source_column,...; got '" + pair
              + "'");
        }
        String column = parts[0].strip();
        TransactionLogsTable.require(column);
        if (explicit.put(column, parts[1].strip()) != null) {
          throw new IllegalArgumentException("column " + column + " is mapped twice");
        }
      }
    }
    return new ColumnMapping(Map.copyOf(explicit));
  }

  /** The source column that feeds {@code column} of {@code transaction_logs}. */
  public String sourceOf(String column) {
    return explicit.getOrDefault(column, column);
  }

  /**
   * What is wrong with feeding {@code transaction_logs} from a table with {@code sourceColumns}: a required column
   * that no source column feeds, or a mapping that names a column the table lacks (matched as MySQL does, ignoring
   * case). Empty when nothing is.
   */
  public List<String> problems(String table, Collection<String> sourceColumns) {
    List<String> lower = sourceColumns.stream().map(c -> c.toLowerCase(java.util.Locale.ROOT)).toList();
    List<String> problems = new ArrayList<>();
    for (Column column : TransactionLogsTable.COLUMNS) {
      String source = sourceOf(column.name());
      boolean present = lower.contains(source.toLowerCase(java.util.Locale.ROOT));
      if (!present && explicit.containsKey(column.name())) {
        problems.add(column.name() + " is mapped to " + table + "." + source + ", which does not exist");
      } else if (!present && REQUIRED.contains(column.name())) {
        problems.add(table + " has no column " + column.name() + ", which routing needs: map one to it ("
            + column.name() + "=<column of " + table + ">)");
      }
    }
    return problems;
  }

  @Override
  public String toString() {
    return String.join(",", explicit.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }
}
