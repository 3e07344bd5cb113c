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

  /**
   * Throws an {@link IllegalArgumentException} naming the problem when {@code change} cannot be applied: ids, times
   * and versions must not be negative, times not beyond {@link TransactionLogsTable#MAX_TIME}, keywords and attributes
   * within Lucene's term limit, texts within {@link TransactionLogsTable#MAX_TEXT_BYTES}, the price within decimal(18,
   * 2). Checked before a change reaches a translog, so that nothing logged can fail to index.
   */
  public static void validate(TransactionLogChange change) {
    if (change.getTenantId() < 0 || change.getRowId() < 0) {
      throw new IllegalArgumentException(describe(change) + ": tenant_id and row_id must not be negative");
    }
    requireTime(change, "created_time", change.getCreatedTime());
    requireTime(change, "modified_time", change.getModifiedTime());
    if (change.getVersion() < 0) {
      throw new IllegalArgumentException(describe(change) + ": version must not be negative");
    }
    requireBytes(change, "seller_nick", change.getSellerNick(), TransactionLogsTable.MAX_KEYWORD_BYTES);
    requireBytes(change, "buyer_nick", change.getBuyerNick(), TransactionLogsTable.MAX_KEYWORD_BYTES);
    requireBytes(change, "title", change.getTitle(), TransactionLogsTable.MAX_TEXT_BYTES);
    String attributes = change.getAttributes();
    requireBytes(change, "attributes", attributes, TransactionLogsTable.MAX_TEXT_BYTES);
    if (attributes != null && attributes.length() > TransactionLogsTable.MAX_KEYWORD_BYTES / 3) {
      for (String pair : attributes.split(";")) {
        requireBytes(change, "an attribute", pair, TransactionLogsTable.MAX_KEYWORD_BYTES);
      }
    }
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
    if (price != null && price.precision() - price.scale() > TransactionLogsTable.PRICE_PRECISION
        - TransactionLogsTable.PRICE_SCALE) {
      throw new IllegalArgumentException(describe(change) + ": price " + price + " has more than "
          + (TransactionLogsTable.PRICE_PRECISION - TransactionLogsTable.PRICE_SCALE) + " integer digits");
    }
  }

  private static void requireTime(TransactionLogChange change, String column, long time) {
    if (time < 0 || time > TransactionLogsTable.MAX_TIME) {
      throw new IllegalArgumentException(describe(change) + ": " + column + " " + time + " is not an epoch "
          + "millisecond from 1970 to 9999");
    }
  }

  private static void requireBytes(TransactionLogChange change, String column, CharSequence value, int max) {
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: short values need no count.
    if (value == null || value.length() <= max / 3) {
      return;
    }
    int bytes = utf8Length(value);
    if (bytes > max) {
      throw new IllegalArgumentException(describe(change) + ": " + column + " is " + bytes + " bytes of UTF-8; at "
          + "most " + max);
    }
  }

  private static int utf8Length(CharSequence value) {
    int bytes = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
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
