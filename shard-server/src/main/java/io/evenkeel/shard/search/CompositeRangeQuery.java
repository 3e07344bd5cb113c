package io.evenkeel.shard.search;

import io.evenkeel.shard.index.IndexFields;
import io.evenkeel.shard.index.RowDocuments;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import org.apache.lucene.document.BinaryPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.BulkScorer;
import org.apache.lucene.search.FilterWeight;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * A range over the composite index (tenant_id, created_time) from [lowTenant, lowCreated] to [highTenant,
 * highCreated], that first asks each segment whether its own tenant_id and created_time bounds can hold a match.
 *
 * <p>The composite point is one 16-byte dimension, so its per-segment bounds span every tenant and say nothing about
 * time: without this check every segment opens its points tree and scans the leaf at the range's edge, although rows
 * arrive in time order and a tenant's time window lies in one or two of a shard's segments. The columns' own points
 * keep per-segment minimum and maximum in memory, so the check costs two comparisons a column.
 */
final class CompositeRangeQuery extends Query {
  private final long lowTenant;
  private final long lowCreated;
  private final long highTenant;
  private final long highCreated;
  private final Query points;

  CompositeRangeQuery(long lowTenant, long lowCreated, long highTenant, long highCreated) {
    this(lowTenant, lowCreated, highTenant, highCreated, BinaryPoint.newRangeQuery(IndexFields.TENANT_CREATED,
        RowDocuments.tenantCreated(lowTenant, lowCreated), RowDocuments.tenantCreated(highTenant, highCreated)));
  }

  private CompositeRangeQuery(long lowTenant, long lowCreated, long highTenant, long highCreated, Query points) {
    this.lowTenant = lowTenant;
    this.lowCreated = lowCreated;
    this.highTenant = highTenant;
    this.highCreated = highCreated;
    this.points = points;
  }

  /**
   * Whether the segment can hold a match. Across tenants the composite range covers every time of the tenants
   * strictly inside it, so the created_time bounds apply only when the range names one tenant.
   */
  private boolean mayMatch(LeafReader reader) throws IOException {
    if (!overlaps(reader, "tenant_id", lowTenant, highTenant)) {
      return false;
    }
    return lowTenant != highTenant || overlaps(reader, "created_time", lowCreated, highCreated);
  }

  private static boolean overlaps(LeafReader reader, String field, long low, long high) throws IOException {
    PointValues values = reader.getPointValues(field);
    return values != null
        && LongPoint.decodeDimension(values.getMinPackedValue(), 0) <= high
        && LongPoint.decodeDimension(values.getMaxPackedValue(), 0) >= low;
  }

  /**
   * About how many rows the range holds (live or not), from the points trees' inner nodes only: the leaves at the
   * range's edges count for half. Costs a walk down each segment's tree, no leaf is read.
   */
  long estimateRows(IndexReader reader) throws IOException {
    byte[] low = RowDocuments.tenantCreated(lowTenant, lowCreated);
    byte[] high = RowDocuments.tenantCreated(highTenant, highCreated);
    PointValues.IntersectVisitor cells = new PointValues.IntersectVisitor() {
      @Override
      public void visit(int docID) {}

      @Override
      public void visit(int docID, byte[] packedValue) {}

      @Override
      public PointValues.Relation compare(byte[] min, byte[] max) {
        if (Arrays.compareUnsigned(min, 0, 16, high, 0, 16) > 0 || Arrays.compareUnsigned(max, 0, 16, low, 0, 16) < 0) {
          return PointValues.Relation.CELL_OUTSIDE_QUERY;
        }
        return Arrays.compareUnsigned(min, 0, 16, low, 0, 16) >= 0 && Arrays.compareUnsigned(max, 0, 16, high, 0, 16) <= 0
            ? PointValues.Relation.CELL_INSIDE_QUERY : PointValues.Relation.CELL_CROSSES_QUERY;
      }
    };
    long rows = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues values = leaf.reader().getPointValues(IndexFields.TENANT_CREATED);
      if (values != null && mayMatch(leaf.reader())) {
        rows += values.estimatePointCount(cells);
      }
    }
    return rows;
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    Query rewritten = points.rewrite(searcher);
    return rewritten == points ? this
        : new CompositeRangeQuery(lowTenant, lowCreated, highTenant, highCreated, rewritten);
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
    return new FilterWeight(this, points.createWeight(searcher, scoreMode, boost)) {
      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
        return mayMatch(context.reader()) ? in.scorerSupplier(context) : null;
      }

      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        return mayMatch(context.reader()) ? in.scorer(context) : null;
      }

      @Override
      public BulkScorer bulkScorer(LeafReaderContext context) throws IOException {
        return mayMatch(context.reader()) ? in.bulkScorer(context) : null;
      }

      @Override
      public int count(LeafReaderContext context) throws IOException {
        return mayMatch(context.reader()) ? in.count(context) : 0;
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    points.visit(visitor.getSubVisitor(org.apache.lucene.search.BooleanClause.Occur.FILTER, this));
  }

  @Override
  public String toString(String field) {
    return "composite[" + lowTenant + ", " + lowCreated + "]..[" + highTenant + ", " + highCreated + "]";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && points.equals(((CompositeRangeQuery) other).points);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), points);
  }
}
