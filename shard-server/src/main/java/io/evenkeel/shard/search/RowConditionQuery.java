package io.evenkeel.shard.search;

import io.evenkeel.expr.CompiledExpression;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.TableRow;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
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
 * HOUR(FROM_UNIXTIME(created_time / 1000)) = 3}). It reads its row where {@link RowSource} says (doc values, or the stored
 * row). It only confirms candidates (a two-phase iterator with that cost), so the query's indexed
 * clauses lead and only their matches are tested.
 */
final class RowConditionQuery extends Query {
  private final Expr condition;
  private final RowConditions settings;
  private final RowSource source;

  RowConditionQuery(Expr condition, RowConditions settings) {
    this.condition = condition;
    this.settings = settings;
    this.source = RowSource.of(List.of(condition));
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        CompiledExpression test = settings.evaluator().compile(condition);
        RowSource.Rows rows = source.open(context.reader());
        DocIdSetIterator approximation = DocIdSetIterator.all(context.reader().maxDoc());
        TwoPhaseIterator candidates = new TwoPhaseIterator(approximation) {
          @Override
          public boolean matches() throws IOException {
            TableRow row = rows.row(approximation.docID());
            return row != null && test.isTrue(row);
          }

          @Override
          public float matchCost() {
            return source.costPerRow();
          }
        };
        return new ConstantScoreScorer(this, score(), scoreMode, candidates);
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        // Cached, it would be run over every document of the segment, not only the candidates.
        return false;
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
