package io.evenkeel.shard.search;

import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Value;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;

/**
 * Top hits of a query whose composite range (tenant_id = k, created_time in [from, to]) gives the order of its first
 * sort key, created_time. Ranking every row of the range costs as many doc-values checks and comparisons as the
 * range has rows, although a page needs a few of them. Instead the range is read from the sort's end in steps of
 * created_time: each step is an ordinary search restricted to a slice, and its hits all precede those of the later
 * slices, so the search stops as soon as it holds {@code limit} hits. The first slice is sized from the range's row
 * count (estimated from the points tree) to hold about twice the page; each next slice is four times wider. Ranges of
 * fewer than {@link #MIN_ROWS_TO_SLICE} rows are ranked whole.
 */
final class CompositeOrderSearch {
  private static final String CREATED_TIME = "created_time";
  /**
   * Below this many rows in the range, ranking them all is cheaper than slicing: each slice is a search of its own,
   * with its own per-segment setup. Measured with ShardPlanBenchmark: at about 1,000 rows a shard slicing cost more;
   * at 25,000, ranking them all cost 8 times more.
   */
  private static final long MIN_ROWS_TO_SLICE = 4_096;

  private CompositeOrderSearch() {}

  static List<FieldDoc> topHits(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request, Sort sort)
      throws IOException {
    Filter filter = request.getFilter();
    RowConditions conditions = RowConditions.of(request);
    CompositeRange range = compositeOf(filter);
    long[] bounds = QueryTranslator.compositeBounds(range);
    if (request.getSortCount() == 0 || !request.getSort(0).getField().equals(CREATED_TIME)) {
      throw new IllegalArgumentException("ordered_by_composite needs created_time as the first sort key");
    }
    int limit = request.getLimit();
    if (bounds == null) {
      return List.of();
    }
    long tenant = bounds[0];
    if (tenant != bounds[2]) {
      throw new IllegalArgumentException("ordered_by_composite needs a composite range on one tenant; got tenants "
          + bounds[0] + " to " + bounds[2]);
    }
    // Open bounds (created_time >= t) would make the slices meaningless: clamp them to the times the shard holds.
    long[] held = heldTimes(searcher);
    long low = Math.max(bounds[1], held[0]);
    long high = Math.min(bounds[3], held[1]);
    if (low > high) {
      return List.of();
    }
    long rows = new CompositeRangeQuery(tenant, low, tenant, high).estimateRows(searcher.getIndexReader());
    if (rows <= Math.max(MIN_ROWS_TO_SLICE, 16L * limit)) {
      return search(searcher, withSlice(filter, range, tenant, low, high), limit, sort, conditions);
    }
    boolean descending = request.getSort(0).getDescending();
    double span = (double) high - low + 1;
    long step = Math.max(1, (long) Math.min(span, Math.ceil(span * 2 * limit / rows)));
    List<FieldDoc> hits = new ArrayList<>(limit);
    long cursor = descending ? high : low;
    while (true) {
      long from = descending ? (cursor - low < step ? low : cursor - step + 1) : cursor;
      long to = descending ? cursor : (high - cursor < step ? high : cursor + step - 1);
      hits.addAll(search(searcher, withSlice(filter, range, tenant, from, to), limit - hits.size(), sort,
          conditions));
      if (hits.size() == limit || (descending ? from == low : to == high)) {
        return hits;
      }
      cursor = descending ? from - 1 : to + 1;
      step = step > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : step * 4;
    }
  }

  private static List<FieldDoc> search(IndexSearcher searcher, Filter filter, int limit, Sort sort,
      RowConditions conditions)
      throws IOException {
    List<FieldDoc> hits = new ArrayList<>();
    for (ScoreDoc doc : searcher.search(QueryTranslator.liveRows(filter, conditions), limit, sort).scoreDocs) {
      hits.add((FieldDoc) doc);
    }
    return hits;
  }

  /** The composite range of the filter: the filter itself, or its one composite among the top-level musts. */
  private static CompositeRange compositeOf(Filter filter) {
    if (filter.getKindCase() == Filter.KindCase.COMPOSITE_RANGE) {
      return filter.getCompositeRange();
    }
    List<CompositeRange> found = new ArrayList<>();
    if (filter.getKindCase() == Filter.KindCase.BOOL) {
      for (Filter must : filter.getBool().getMustList()) {
        if (must.getKindCase() == Filter.KindCase.COMPOSITE_RANGE) {
          found.add(must.getCompositeRange());
        }
      }
    }
    if (found.size() != 1) {
      throw new IllegalArgumentException("ordered_by_composite needs one composite range among the filter's "
          + "top-level musts; found " + found.size());
    }
    return found.get(0);
  }

  /** The filter with its composite range {@code range} narrowed to tenant = k, created_time in [from, to]. */
  private static Filter withSlice(Filter filter, CompositeRange range, long tenant, long from, long to) {
    Filter slice = Filter.newBuilder().setCompositeRange(CompositeRange.newBuilder()
        .setIndex(range.getIndex())
        .addLower(longValue(tenant)).addLower(longValue(from))
        .addUpper(longValue(tenant)).addUpper(longValue(to))).build();
    if (filter.getKindCase() == Filter.KindCase.COMPOSITE_RANGE) {
      return slice;
    }
    Bool.Builder bool = filter.getBool().toBuilder().clearMust();
    for (Filter must : filter.getBool().getMustList()) {
      bool.addMust(must.getKindCase() == Filter.KindCase.COMPOSITE_RANGE ? slice : must);
    }
    return Filter.newBuilder().setBool(bool).build();
  }

  /** The least and greatest created_time over the searcher's segments (kept in memory by the points index). */
  private static long[] heldTimes(IndexSearcher searcher) throws IOException {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      PointValues values = leaf.reader().getPointValues(CREATED_TIME);
      if (values != null) {
        min = Math.min(min, LongPoint.decodeDimension(values.getMinPackedValue(), 0));
        max = Math.max(max, LongPoint.decodeDimension(values.getMaxPackedValue(), 0));
      }
    }
    return new long[] {min, max};
  }

  private static Value longValue(long value) {
    return Value.newBuilder().setLongValue(value).build();
  }
}
