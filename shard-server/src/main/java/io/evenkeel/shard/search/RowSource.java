package io.evenkeel.shard.search;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
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
        : docValueColumns.stream().mapToInt(column -> TableRow.positionOf(column.name())).toArray();
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
    /**
     * The row of segment document {@code doc} (docs in increasing order), or null for a tombstone; valid until the
     * next call, which may reuse it.
     */
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
    TableRow row = TableRow.blank(); // read, evaluated and left before the next: one for the segment
    ColumnSetter[] setters = new ColumnSetter[docValueColumns.size()];
    for (int i = 0; i < setters.length; i++) {
      setters[i] = setter(reader, docValueColumns.get(i), positions[i], row);
    }
    return doc -> {
      for (ColumnSetter setter : setters) {
        setter.set(doc);
      }
      return row;
    };
  }

  /** Sets one column of the segment's row to a document's value. */
  private interface ColumnSetter {
    void set(int doc) throws IOException;
  }

  private static ColumnSetter setter(LeafReader reader, Column column, int position, TableRow row)
      throws IOException {
    if (column.isNumeric() && column.type() != ColumnType.DECIMAL) {
      // Integers unboxed: a row is read for each candidate, so a boxed value would be an allocation per row.
      NumericDocValues values = DocValues.getNumeric(reader, column.name());
      return doc -> {
        if (values.advanceExact(doc)) {
          row.setInteger(position, values.longValue());
        } else {
          row.set(position, null);
        }
      };
    }
    ColumnReader values = ColumnReader.of(reader, column);
    return doc -> row.set(position, FieldValues.sqlValue(column, values.read(doc)));
  }
}
