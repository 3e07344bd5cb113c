package io.evenkeel.shard.search;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.shard.index.IndexFields;
import io.evenkeel.shard.index.RowDocuments;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
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
 * Rows whose stored {@code attributes} hold {@code key} with a value that {@code matches}: the scan that answers an
 * attribute filter for documents written while the key was not hot. It only confirms candidates (a two-phase
 * iterator with a high match cost), so the query's cheaper clauses lead; a segment whose every document was indexed
 * with the key hot ({@link IndexFields#HOT_KEYS}) is skipped whole.
 */
final class StoredAttributeQuery extends Query {
  private final String key;
  private final String predicate;
  private final Predicate<String> matches;

  /** {@code predicate} describes {@code matches} (for equality and toString). */
  StoredAttributeQuery(String key, String predicate, Predicate<String> matches) {
    this.key = key;
    this.predicate = predicate;
    this.matches = matches;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        LeafReader reader = context.reader();
        if (reader.docFreq(new Term(IndexFields.HOT_KEYS, key)) == reader.maxDoc()) {
          return null;
        }
        StoredFields stored = reader.storedFields();
        DocIdSetIterator approximation = DocIdSetIterator.all(reader.maxDoc());
        return new ConstantScoreScorer(this, score(), scoreMode, new TwoPhaseIterator(approximation) {
          @Override
          public boolean matches() throws IOException {
            TransactionLogChange row = StoredRows.read(stored, approximation.docID());
            if (row == null) {
              return false; // a tombstone
            }
            String value = RowDocuments.attributeValue(row.getAttributes(), key);
            return value != null && matches.test(value);
          }

          @Override
          public float matchCost() {
            return StoredRows.MATCH_COST;
          }
        });
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        // Cached, it would be run over every document of the segment, the marked ones included.
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
    return "stored attr('" + key + "') " + predicate;
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && key.equals(((StoredAttributeQuery) other).key)
        && predicate.equals(((StoredAttributeQuery) other).predicate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), key, predicate);
  }
}
