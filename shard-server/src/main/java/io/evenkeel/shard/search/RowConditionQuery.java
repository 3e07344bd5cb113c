package io.evenkeel.shard.search;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.shard.index.IndexFields;
import java.io.IOException;
import java.util.Objects;
import java.util.Set;
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
import org.apache.lucene.util.BytesRef;

/**
 * Rows whose stored row makes a SQL condition TRUE, evaluated by the query service's own {@link Evaluator} (the
 * same MySQL semantics, NULL rejecting): the part of a WHERE clause no index answers ({@code price * quantity > 100},
 * {@code HOUR(FROM_UNIXTIME(created_time / 1000)) = 3}). It only confirms candidates (a two-phase iterator with the
 * cost of reading and decoding a row), so the query's indexed clauses lead and only their matches are read.
 */
final class RowConditionQuery extends Query {
  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);
  private static final Set<String> SOURCE_ONLY = Set.of(IndexFields.SOURCE);
  /** About what reading and decoding one stored row and testing it costs, in the units of Lucene's match costs. */
  private static final float MATCH_COST = 1_500;

  private final Expr condition;
  private final RowConditions settings;

  RowConditionQuery(Expr condition, RowConditions settings) {
    this.condition = condition;
    this.settings = settings;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        StoredFields stored = context.reader().storedFields();
        Evaluator evaluator = settings.evaluator();
        DocIdSetIterator approximation = DocIdSetIterator.all(context.reader().maxDoc());
        return new ConstantScoreScorer(this, score(), scoreMode, new TwoPhaseIterator(approximation) {
          @Override
          public boolean matches() throws IOException {
            BytesRef source = stored.document(approximation.docID(), SOURCE_ONLY).getBinaryValue(IndexFields.SOURCE);
            return source != null && evaluator.isTrue(condition, TableRow.of(row(source)));
          }

          @Override
          public float matchCost() {
            return MATCH_COST;
          }
        });
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        // Cached, it would be run over every document of the segment, not only the candidates.
        return false;
      }
    };
  }

  private static TransactionLogChange row(BytesRef source) {
    try {
      return ROWS.decode(BytesRef.deepCopyOf(source).bytes);
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("a stored row is unreadable: " + e.getMessage(), e);
    }
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
