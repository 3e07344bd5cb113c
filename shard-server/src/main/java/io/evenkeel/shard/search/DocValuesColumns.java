package io.evenkeel.shard.search;

import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;

/**
 * Reads columns of given documents from doc values: a covered projection, cheaper than decompressing each row's
 * stored source. Documents are visited in index order, one {@link ColumnReader} per segment and column.
 */
final class DocValuesColumns {
  private DocValuesColumns() {}

  /** The columns that can be read this way: numbers and keywords (the title and attributes have no doc values). */
  static List<Column> require(List<String> names) {
    List<Column> columns = new ArrayList<>(names.size());
    for (String name : names) {
      Column column = TransactionLogsTable.require(name);
      if (!column.hasDocValues()) {
        throw new IllegalArgumentException("column " + name + " (" + column.type() + ") has no doc values to return");
      }
      columns.add(column);
    }
    return columns;
  }

  /** For each of {@code docs} (top-level doc ids, any order), its values of {@code columns}. */
  static List<List<Value>> read(IndexReader reader, int[] docs, List<Column> columns) throws IOException {
    Integer[] order = new Integer[docs.length];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, (a, b) -> Integer.compare(docs[a], docs[b]));
    List<List<Value>> values = new ArrayList<>(docs.length);
    for (int i = 0; i < docs.length; i++) {
      values.add(null);
    }
    List<LeafReaderContext> leaves = reader.leaves();
    int leafIndex = -1;
    ColumnReader[] readers = new ColumnReader[columns.size()];
    for (int i : order) {
      int next = ReaderUtil.subIndex(docs[i], leaves);
      if (next != leafIndex) {
        leafIndex = next;
        for (int c = 0; c < columns.size(); c++) {
          readers[c] = ColumnReader.of(leaves.get(leafIndex).reader(), columns.get(c));
        }
      }
      int doc = docs[i] - leaves.get(leafIndex).docBase;
      List<Value> row = new ArrayList<>(columns.size());
      for (int c = 0; c < columns.size(); c++) {
        row.add(FieldValues.toValue(columns.get(c), readers[c].read(doc)));
      }
      values.set(i, row);
    }
    return values;
  }
}
