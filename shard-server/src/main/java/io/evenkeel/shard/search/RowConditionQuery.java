package io.evenkeel.shard.search;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;

/**
 * Rows that make a SQL condition TRUE, evaluated by the query service's own {@link Evaluator} (the same MySQL
 * semantics, NULL rejecting): the part of a WHERE clause no index answers ({@code price * quantity > 100}, {@code
 * HOUR(FROM_UNIXTIME(created_time / 1000)) = 3}). A condition that reads only columns with doc values reads them
 * there, a few nanoseconds a value; one that reads the title, the attributes or attr() reads and decodes the stored
 * row, microseconds a row. It only confirms candidates (a two-phase iterator with that cost), so the query's indexed
 * clauses lead and only their matches are tested.
 */
final class RowConditionQuery extends Query {
  /** About what reading a doc value costs, in the units of Lucene's match costs. */
  private static final float DOC_VALUE_COST = 10;

  private final Expr condition;
  private final RowConditions settings;
  /** The columns the condition reads, when all have doc values and it reads no attribute; null otherwise. */
  private final List<Column> docValueColumns;

  RowConditionQuery(Expr condition, RowConditions settings) {
    this.condition = condition;
    this.settings = settings;
    this.docValueColumns = docValueColumns(condition);
  }

  private static List<Column> docValueColumns(Expr condition) {
    Set<String> names = new LinkedHashSet<>();
    if (!collectColumns(condition, names)) {
      return null;
    }
    List<Column> columns = new ArrayList<>();
    for (String name : names) {
      Column column = TransactionLogsTable.require(name);
      if (!column.hasDocValues()) {
        return null;
      }
      columns.add(column);
    }
    return columns;
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

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        Evaluator evaluator = settings.evaluator();
        DocIdSetIterator approximation = DocIdSetIterator.all(context.reader().maxDoc());
        TwoPhaseIterator test = docValueColumns != null
            ? fromDocValues(context.reader(), approximation, evaluator)
            : fromStoredRows(context.reader(), approximation, evaluator);
        return new ConstantScoreScorer(this, score(), scoreMode, test);
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        // Cached, it would be run over every document of the segment, not only the candidates.
        return false;
      }
    };
  }

  private TwoPhaseIterator fromStoredRows(LeafReader reader, DocIdSetIterator approximation, Evaluator evaluator)
      throws IOException {
    StoredFields stored = reader.storedFields();
    return new TwoPhaseIterator(approximation) {
      @Override
      public boolean matches() throws IOException {
        TransactionLogChange row = StoredRows.read(stored, approximation.docID());
        return row != null && evaluator.isTrue(condition, TableRow.of(row));
      }

      @Override
      public float matchCost() {
        return StoredRows.MATCH_COST;
      }
    };
  }

  private TwoPhaseIterator fromDocValues(LeafReader reader, DocIdSetIterator approximation, Evaluator evaluator)
      throws IOException {
    List<String> names = docValueColumns.stream().map(Column::name).toList();
    ColumnReader[] readers = new ColumnReader[docValueColumns.size()];
    for (int i = 0; i < readers.length; i++) {
      readers[i] = ColumnReader.of(reader, docValueColumns.get(i));
    }
    return new TwoPhaseIterator(approximation) {
      @Override
      public boolean matches() throws IOException {
        List<Object> values = new ArrayList<>(readers.length);
        for (int i = 0; i < readers.length; i++) {
          values.add(FieldValues.sqlValue(docValueColumns.get(i), readers[i].read(approximation.docID())));
        }
        return evaluator.isTrue(condition, TableRow.ofColumns(0, 0, names, values));
      }

      @Override
      public float matchCost() {
        return DOC_VALUE_COST * readers.length;
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    visitor.visitLeaf(this);
  }

  @Override
  public String toString(String field) {
    return "row condition " + condition;
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && condition.equals(((RowConditionQuery) other).condition)
        && settings.equals(((RowConditionQuery) other).settings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), condition, settings);
  }
}
