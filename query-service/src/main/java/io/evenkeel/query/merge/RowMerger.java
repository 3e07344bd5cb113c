package io.evenkeel.query.merge;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.TableRow;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.schemas.shard.Hit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Merges rows from several shards for a query without groups: sorts by the ORDER BY keys, then (tenant_id, row_id),
 * the total order every shard uses too, applies OFFSET/LIMIT and evaluates the select list.
 */
public final class RowMerger {
  private RowMerger() {}

  /** A row with its ORDER BY keys' values. */
  public record SortedRow(List<Object> keys, TableRow row) {}

  /** Rows in any order (a full fetch): sorted, then the page [offset, offset + limit). */
  public static List<SortedRow> sortedPage(List<TableRow> rows, SelectStatement statement, Evaluator evaluator) {
    List<SortedRow> keyed = new ArrayList<>(rows.size());
    for (TableRow row : rows) {
      List<Object> keys = new ArrayList<>();
      for (OrderItem item : statement.orderBy()) {
        keys.add(evaluator.eval(item.expr(), row));
      }
      keyed.add(new SortedRow(keys, row));
    }
    boolean[] descending = descending(statement);
    Comparator<SortedRow> byKeys = (a, b) -> ValueOrder.compareKeys(a.keys(), b.keys(), descending);
    keyed.sort(byKeys
        .thenComparingLong(k -> k.row().tenantId())
        .thenComparingLong(k -> k.row().rowId()));
    return Page.slice(keyed, statement.offset(), statement.limit());
  }

  /** The select list of each row, in order. */
  public static List<List<Object>> project(List<TableRow> rows, SelectStatement statement, Evaluator evaluator) {
    List<List<Object>> output = new ArrayList<>(rows.size());
    for (TableRow row : rows) {
      List<Object> values = new ArrayList<>(statement.items().size());
      for (SelectItem item : statement.items()) {
        values.add(SqlValues.output(evaluator.eval(item.expr(), row)));
      }
      output.add(values);
    }
    return output;
  }

  /** A hit from one shard, remembered with its shard for the fetch phase. */
  public record ShardHit(int shard, Hit hit, List<Object> sortValues) {}

  /** The page [offset, offset + limit) of the shards' sorted hits, merged in the shards' order. */
  public static List<ShardHit> topHits(List<ShardHit> hits, SelectStatement statement) {
    boolean[] descending = descending(statement);
    List<ShardHit> sorted = new ArrayList<>(hits);
    Comparator<ShardHit> byKeys = (a, b) -> ValueOrder.compareKeys(a.sortValues(), b.sortValues(), descending);
    sorted.sort(byKeys
        .thenComparingLong(h -> h.hit().getTenantId())
        .thenComparingLong(h -> h.hit().getRowId()));
    return Page.slice(sorted, statement.offset(), statement.limit());
  }

  private static boolean[] descending(SelectStatement statement) {
    boolean[] descending = new boolean[statement.orderBy().size()];
    for (int i = 0; i < descending.length; i++) {
      descending[i] = statement.orderBy().get(i).descending();
    }
    return descending;
  }
}
