package io.evenkeel.shard.index;

import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BulkScorer;
import org.apache.lucene.search.CollectionTerminatedException;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.DocIdSetIterator;
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
        ShardSearcher searcher = new ShardSearcher(reader, Long.MAX_VALUE, NEVER);
        searcher.setQueryCachingPolicy(policy);
        return searcher;
      }
    };
  }

  /** Documents scored between two looks at the clock. */
  private static final int DOCS_PER_CHECK = 1 << 14;

  private static final BooleanSupplier NEVER = () -> false;

  /** {@link System#nanoTime()} after which a search stops; {@code Long.MAX_VALUE}: never. */
  private final long deadlineNanos;
  /** Whether the caller gave up: the search stops at its next look at the clock. */
  private final BooleanSupplier cancelled;

  private ShardSearcher(IndexReader reader, long deadlineNanos, BooleanSupplier cancelled) {
    super(reader);
    this.deadlineNanos = deadlineNanos;
    this.cancelled = cancelled;
  }

  /**
   * The same reader and caching, searched until {@code deadlineNanos} ({@link System#nanoTime()}) at most: a search
   * still running then stops with {@link SearchTimeoutException}, so a caller that has given up costs no more CPU.
   */
  public static IndexSearcher until(IndexSearcher searcher, long deadlineNanos) {
    return until(searcher, deadlineNanos, NEVER);
  }

  /** As {@link #until(IndexSearcher, long)}, and stopped as well once {@code cancelled} says so. */
  public static IndexSearcher until(IndexSearcher searcher, long deadlineNanos, BooleanSupplier cancelled) {
    ShardSearcher bounded = new ShardSearcher(searcher.getIndexReader(), deadlineNanos, cancelled);
    bounded.setQueryCachingPolicy(searcher.getQueryCachingPolicy());
    bounded.setQueryCache(searcher.getQueryCache());
    bounded.setSimilarity(searcher.getSimilarity());
    return bounded;
  }

  /** A search stopped at its deadline. */
  public static final class SearchTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean pastDeadline;

    /** A search whose caller gave up. */
    public SearchTimeoutException(String message) {
      this(message, false);
    }

    SearchTimeoutException(String message, boolean pastDeadline) {
      super(message);
      this.pastDeadline = pastDeadline;
    }

    /** Whether the search ran out of time (rather than its caller cancelling it). */
    public boolean pastDeadline() {
      return pastDeadline;
    }
  }

  /** A collector that can take a segment's results from where it kept them, without searching the segment. */
  public interface KeptSegments {
    /** Whether the collector took {@code context}'s results from what it kept: then the segment is not searched. */
    boolean collectedFromCache(LeafReaderContext context) throws IOException;
  }

  @Override
  protected void searchLeaf(LeafReaderContext context, Weight weight, Collector collector) throws IOException {
    if (collector instanceof KeptSegments kept && kept.collectedFromCache(context)) {
      return;
    }
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
      if (deadlineNanos == Long.MAX_VALUE && cancelled == NEVER) {
        scorer.score(leafCollector, context.reader().getLiveDocs());
      } else {
        // In windows of documents, looking at the clock between them.
        int maxDoc = context.reader().maxDoc();
        for (int from = 0; from < maxDoc && from != DocIdSetIterator.NO_MORE_DOCS; ) {
          if (System.nanoTime() - deadlineNanos > 0) {
            throw new SearchTimeoutException("the search passed its deadline in segment " + context.ord + " of "
                + leafContexts.size() + " and was stopped", true);
          }
          if (cancelled.getAsBoolean()) {
            throw new SearchTimeoutException("the caller cancelled the search (segment " + context.ord + " of "
                + leafContexts.size() + ")");
          }
          from = scorer.score(leafCollector, context.reader().getLiveDocs(), from,
              (int) Math.min(maxDoc, (long) from + DOCS_PER_CHECK));
        }
      }
    } catch (CollectionTerminatedException e) {
      // the collector has what it needs from this segment
    }
    leafCollector.finish();
  }
}
