package io.evenkeel.schemas.change;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.List;
import java.util.Set;

/** Checks incoming changes and folds partial updates onto stored rows. */
public final class Changes {
  /** Columns a change can never alter: they identify and place the row. */
  private static final Set<String> FIXED = Set.of("tenant_id", "row_id", "created_time");

  private Changes() {}

  /** Throws an {@link IllegalArgumentException} naming the problem when {@code change} cannot be applied. */
  public static void validate(TransactionLogChange change) {
    List<String> setColumns = change.getSetColumns();
    if (setColumns != null) {
      if (change.getOp() != ChangeOp.UPDATE) {
        throw new IllegalArgumentException(describe(change) + ": set_columns is only for a partial UPDATE, not "
            + change.getOp());
      }
      for (String name : setColumns) {
        TransactionLogsTable.require(name);
        if (FIXED.contains(name)) {
          throw new IllegalArgumentException(describe(change) + ": a partial UPDATE cannot set " + name);
        }
      }
    }
    BigDecimal price = change.getPrice();
    if (price != null && price.scale() > TransactionLogsTable.PRICE_SCALE
        && price.stripTrailingZeros().scale() > TransactionLogsTable.PRICE_SCALE) {
      throw new IllegalArgumentException(describe(change) + ": price " + price + " has more than "
          + TransactionLogsTable.PRICE_SCALE + " fractional digits");
    }
  }

  /**
   * The row after {@code change}: a full image as it is; a partial UPDATE's columns copied onto {@code stored} (or
   * onto an empty row, if the row is unknown here).
   */
  public static TransactionLogChange rowAfter(TransactionLogChange change, TransactionLogChange stored) {
    List<String> setColumns = change.getSetColumns();
    if (setColumns == null) {
      return change;
    }
    TransactionLogChange merged = stored == null
        ? TransactionLogChange.newBuilder()
            .setOp(ChangeOp.UPDATE)
            .setTenantId(change.getTenantId())
            .setRowId(change.getRowId())
            .setCreatedTime(change.getCreatedTime())
            .setModifiedTime(change.getModifiedTime())
            .setVersion(change.getVersion())
            .build()
        : TransactionLogChange.newBuilder(stored).build();
    for (String column : setColumns) {
      merged.put(column, change.get(column));
    }
    merged.setOp(change.getOp());
    merged.setModifiedTime(change.getModifiedTime());
    merged.setVersion(change.getVersion());
    merged.setSetColumns(null);
    return merged;
  }

  /**
   * One change with the effect of {@code earlier} followed by {@code later} (later's version is the newer one): what
   * write batching sends instead of both. Deletes and full images replace what came before; a partial update folds
   * onto a full image (or onto the empty row a delete leaves), and two partial updates into one.
   */
  public static TransactionLogChange fold(TransactionLogChange earlier, TransactionLogChange later) {
    if (later.getSetColumns() == null) {
      return later;
    }
    if (earlier.getOp() == ChangeOp.DELETE) {
      return rowAfter(later, null);
    }
    if (earlier.getSetColumns() == null) {
      return rowAfter(later, earlier);
    }
    TransactionLogChange merged = TransactionLogChange.newBuilder(earlier).build();
    java.util.LinkedHashSet<String> columns = new java.util.LinkedHashSet<>(earlier.getSetColumns());
    for (String column : later.getSetColumns()) {
      merged.put(column, later.get(column));
      columns.add(column);
    }
    merged.setSetColumns(new java.util.ArrayList<>(columns));
    merged.setModifiedTime(later.getModifiedTime());
    merged.setVersion(later.getVersion());
    return merged;
  }

  public static String describe(TransactionLogChange change) {
    return change.getOp() + " of row " + change.getTenantId() + ":" + change.getRowId() + " (version "
        + change.getVersion() + ")";
  }
}
