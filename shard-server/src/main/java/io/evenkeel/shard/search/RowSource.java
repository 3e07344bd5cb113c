package io.evenkeel.shard.search;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.StoredFields;

/**
 * Where a shard reads the rows that expressions are evaluated on: from doc values when every column the expressions
 * read has them, a few nanoseconds a value; otherwise (the title, the attributes, attr()) from the stored row,
 * decoded, microseconds a row.
 */
final class RowSource {
  /** About what reading a doc value costs, in the units of Lucene's match costs. */
  private static final float DOC_VALUE_COST = 10;

  /** The columns the expressions read, when all have doc values and none reads an attribute; null otherwise. */
  private final List<Column> docValueColumns;
  /** Where those columns stand in a row. */
  private final int[] positions;

  private RowSource(List<Column> docValueColumns) {
    this.docValueColumns = docValueColumns;
    this.positions = docValueColumns == null ? null
        : TableRow.positions(docValueColumns.stream().map(Column::name).toList());
  }

  /** The source that serves every one of {@code expressions}. */
  static RowSource of(Collection<Expr> expressions) {
    Set<String> names = new LinkedHashSet<>();
    for (Expr expression : expressions) {
      if (!collectColumns(expression, names)) {
        return new RowSource(null);
      }
    }
    List<Column> columns = new ArrayList<>();
    for (String name : names) {
      Column column = TransactionLogsTable.require(name);
      if (!column.hasDocValues()) {
        return new RowSource(null);
      }
      columns.add(column);
    }
    return new RowSource(columns);
  }

  /** Adds the columns {@code expr} reads to {@code names}; false when it reads an attribute. */
  private static boolean collectColumns(Expr expr, Set<String> names) {
    if (expr instanceof Expr.Column column) {
      names.add(column.name());
    } else if (expr instanceof Expr.Attr) {
      return false;
    } else if (expr instanceof Expr.Call call) {
      for (Expr arg : call.args()) {
        if (!collectColumns(arg, names)) {
          return false;
        }
      }
    }
    return true;
  }

  /** What reading one row costs, in the units of Lucene's match costs. */
  float costPerRow() {
    return docValueColumns == null ? StoredRows.MATCH_COST : DOC_VALUE_COST * docValueColumns.size();
  }

  /** One segment's rows. */
  interface Rows {
    /** The row of segment document {@code doc} (docs in increasing order), or null for a tombstone. */
    TableRow row(int doc) throws IOException;
  }

  Rows open(LeafReader reader) throws IOException {
    if (docValueColumns == null) {
      StoredFields stored = reader.storedFields();
      return doc -> {
        TransactionLogChange row = StoredRows.read(stored, doc);
        return row == null ? null : TableRow.of(row);
      };
    }
    ColumnReader[] readers = new ColumnReader[docValueColumns.size()];
    for (int i = 0; i < readers.length; i++) {
      readers[i] = ColumnReader.of(reader, docValueColumns.get(i));
    }
    return doc -> {
      Object[] values = new Object[readers.length];
      for (int i = 0; i < readers.length; i++) {
        values[i] = FieldValues.sqlValue(docValueColumns.get(i), readers[i].read(doc));
      }
      return TableRow.ofPositions(positions, values);
    };
  }
}
