package io.evenkeel.shard.index;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BulkScorer;
import org.apache.lucene.search.CollectionTerminatedException;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.QueryCachingPolicy;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.UsageTrackingQueryCachingPolicy;
import org.apache.lucene.search.Weight;

/**
 * A shard's {@link IndexSearcher}. It asks a segment for its matches before it builds the segment's collector. Lucene 9
 * builds the collector first; for a sorted search that means a comparator per sort field per segment (doc values,
 * and the points tree of the first sort field for skipping), paid even in the segments the query cannot match. A
 * shard holds many time-ordered segments and a tenant's query matches few of them.
 */
public final class ShardSearcher extends IndexSearcher {
  /**
   * Opens a {@link ShardSearcher} on each refreshed reader of one shard. The shard's searchers share one caching
   * policy of their own: Lucene's default policy is one for the whole JVM, so a query sent to four shards counted as
   * used four times, and the fourth shard cached the whole of a query that never came again.
   */
  public static SearcherFactory factory() {
    QueryCachingPolicy policy = new UsageTrackingQueryCachingPolicy();
    return new SearcherFactory() {
      @Override
      public IndexSearcher newSearcher(IndexReader reader, IndexReader previousReader) {
        ShardSearcher searcher = new ShardSearcher(reader);
        searcher.setQueryCachingPolicy(policy);
        return searcher;
      }
    };
  }

  private ShardSearcher(IndexReader reader) {
    super(reader);
  }

  @Override
  protected void searchLeaf(LeafReaderContext context, Weight weight, Collector collector) throws IOException {
    BulkScorer scorer = weight.bulkScorer(context);
    if (scorer == null) {
      return; // no match in this segment: its collector is never needed
    }
    LeafCollector leafCollector;
    try {
      leafCollector = collector.getLeafCollector(context);
    } catch (CollectionTerminatedException e) {
      return;
    }
    try {
      scorer.score(leafCollector, context.reader().getLiveDocs());
    } catch (CollectionTerminatedException e) {
      // the collector has what it needs from this segment
    }
    leafCollector.finish();
  }
}
