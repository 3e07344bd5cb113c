package io.evenkeel.shard.search;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import io.evenkeel.shard.index.IndexFields;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.BytesRef;

/** Runs a structured query on one shard's searcher: top hits in sort order, aggregate buckets, a total. */
public final class ShardSearch {
  /** The most hits one request may ask for (offset included: deeper pages need a narrower query). */
  public static final int MAX_HITS = 100_000;

  /** A hit's heap besides its row: its queue entry, its message and its sort values. */
  private static final long HIT_BYTES = 160;
  /**
   * Above this many hits with their rows, the rows' size is estimated and reserved before any is read, so that a
   * request over its budget is refused in milliseconds instead of after reading rows up to the limit.
   */
  private static final int ROWS_WORTH_ESTIMATING = 1_000;
  /** The stored rows read to estimate the mean row size. */
  private static final int ROW_SAMPLE = 32;

  private static final java.util.Set<String> SAMPLED_FIELDS = java.util.Set.of(IndexFields.SOURCE);
  private static final Column TENANT_ID = TransactionLogsTable.require("tenant_id");
  private static final Column ROW_ID = TransactionLogsTable.require("row_id");

  private ShardSearch() {}

  /** Runs a query without a memory bound (tests, and callers that bound the query themselves). */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request)
      throws IOException {
    try (MemoryBudget.Reservation memory = MemoryBudget.unlimited().open()) {
      return run(searcher, request, memory);
    }
  }

  /**
   * Runs a query, reserving what it builds (groups, the hits' queue, the rows it returns) against {@code memory} as
   * it goes. A filter on an attribute key ({@code attr.<key>}) reads the key's field in documents indexed while it
   * was hot and scans the stored rows of the others ({@link QueryTranslator}).
   *
   * @throws MemoryBudget.Exceeded when the reservation would pass a limit
   */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request,
      MemoryBudget.Reservation memory) throws IOException {
    return run(searcher, request, memory, SegmentAggregates.NONE);
  }

  /**
   * As {@link #run(IndexSearcher, io.evenkeel.schemas.shard.Query, MemoryBudget.Reservation)}, with the groups of
   * segments kept in {@code aggregates} ({@link SegmentAggregates}).
   */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request,
      MemoryBudget.Reservation memory, SegmentAggregates aggregates) throws IOException {
    RowEstimate estimate = estimateRows(searcher, request);
    if (estimate != null) {
      estimate.reserve(memory);
    }
    return run(searcher, request, memory, estimate, aggregates);
  }

  /**
   * What a query's stored rows will take, estimated before any is read: its matches (up to its limit) times the
   * shard's mean row size, counted twice (the row in the hit and in the serialized answer).
   */
  public record RowEstimate(long hits, long bytes) {
    /** Reserves the estimate of all {@code estimates} (a call's shards) at once. */
    public static void reserve(MemoryBudget.Reservation memory, List<RowEstimate> estimates) {
      long hits = estimates.stream().mapToLong(RowEstimate::hits).sum();
      memory.reserve(estimates.stream().mapToLong(RowEstimate::bytes).sum(),
          String.format("the stored rows of %,d hits (estimated)", hits));
    }

    void reserve(MemoryBudget.Reservation memory) {
      reserve(memory, List.of(this));
    }
  }

  /**
   * The estimate of the stored rows {@code request} reads on this shard, when it reads more than {@link
   * #ROWS_WORTH_ESTIMATING} of them with their rows; null otherwise (then they are reserved as they are read).
   */
  public static RowEstimate estimateRows(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request)
      throws IOException {
    if (!request.getIncludeRows() || request.getLimit() <= ROWS_WORTH_ESTIMATING) {
      return null;
    }
    int hits = Math.min(request.getLimit(),
        searcher.count(QueryTranslator.liveRows(request.hasFilter() ? request.getFilter() : null,
            RowConditions.of(request))));
    long bytes = hits > ROWS_WORTH_ESTIMATING ? 2L * hits * meanRowBytes(searcher.getIndexReader()) : 0;
    return new RowEstimate(hits, bytes);
  }

  /**
   * Runs a query whose rows' {@code estimate} (null: none was made) the caller has reserved: rows are reserved as
   * they are read once they pass it. Aggregations take the groups of segments kept in {@code aggregates} and keep
   * there those they read.
   */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request,
      MemoryBudget.Reservation memory, RowEstimate estimate, SegmentAggregates aggregates) throws IOException {
    long started = System.nanoTime();
    if (request.getLimit() < 0 || request.getLimit() > MAX_HITS) {
      throw new IllegalArgumentException("limit must be in [0, " + MAX_HITS + "]; got: " + request.getLimit());
    }
    RowConditions conditions = RowConditions.of(request);
    Query query = QueryTranslator.liveRows(request.hasFilter() ? request.getFilter() : null, conditions);
    SearchResponse.Builder response = SearchResponse.newBuilder();
    List<SortKey> sortKeys = sortKeys(request);
    List<Column> columns = DocValuesColumns.require(request.getColumnsList());
    Sort sort = sort(sortKeys, conditions, memory);
    if (request.getAggregationsCount() > 0 || request.getGroupByCount() > 0
        || request.getGroupByExpressionsCount() > 0) {
      response.addAllBuckets(searcher.search(query, new Aggregator(request, conditions, memory, aggregates)));
    }
    long rowBytesReserved = estimate == null ? 0 : estimate.bytes();
    int hits = -1;
    if (request.getLimit() > 0) {
      // The top-hits queue's array is allocated whole (never longer than the shard has documents); its entries only
      // for the hits that match.
      long queue = Math.min(request.getLimit(), Math.max(1, searcher.getIndexReader().maxDoc()));
      memory.reserve(8 * queue, () -> String.format("a queue of the top %,d hits", queue));
      ScoreDoc[] top = request.getOrderedByComposite()
          ? CompositeOrderSearch.topHits(searcher, request, sort).toArray(ScoreDoc[]::new)
          : searcher.search(query, request.getLimit(), sort).scoreDocs;
      memory.reserve((long) top.length * HIT_BYTES, () -> String.format("%,d hits", top.length));
      StoredFields stored = request.getIncludeRows() ? searcher.storedFields() : null;
      List<List<Value>> hitColumns = columns.isEmpty() ? null : DocValuesColumns.read(searcher.getIndexReader(),
          Arrays.stream(top).mapToInt(doc -> doc.doc).toArray(), columns);
      long rowBytes = 0;
      for (int i = 0; i < top.length; i++) {
        Hit.Builder hit = hit((FieldDoc) top[i], sortKeys, stored);
        if (stored != null) {
          // The row's bytes, in the hit and again in the serialized answer; what the estimate did not cover.
          rowBytes += 2L * hit.getRow().size();
          if (rowBytes > rowBytesReserved) {
            int rowsRead = i + 1;
            memory.reserve(rowBytes - rowBytesReserved, () -> String.format("the stored rows of %,d hits", rowsRead));
            rowBytesReserved = rowBytes;
          } else if (i % 64 == 0) {
            // Within the estimate: stop anyway once another shard of the request was refused.
            memory.checkNotRefused();
          }
        }
        response.addHits(hitColumns == null ? hit : hit.addAllColumns(hitColumns.get(i)));
      }
      hits = top.length;
    }
    if (request.getTrackTotal()) {
      // Fewer hits than the limit are every match: counting again would test each candidate's row condition twice.
      response.setTotal(hits >= 0 && hits < request.getLimit() && !request.getOrderedByComposite() ? hits
          : searcher.count(query));
    }
    return response.setTookMicros((System.nanoTime() - started) / 1_000).build();
  }

  /** The mean size of a stored row, from up to {@link #ROW_SAMPLE} documents spread evenly over the index. */
  private static long meanRowBytes(IndexReader reader) throws IOException {
    int maxDoc = reader.maxDoc();
    int samples = Math.min(ROW_SAMPLE, maxDoc);
    StoredFields stored = reader.storedFields();
    long bytes = 0;
    int rows = 0;
    for (int i = 0; i < samples; i++) {
      BytesRef source = stored.document((int) ((long) i * maxDoc / samples), SAMPLED_FIELDS)
          .getBinaryValue(IndexFields.SOURCE);
      if (source != null) {
        bytes += source.length;
        rows++;
      }
    }
    return rows == 0 ? 0 : bytes / rows;
  }

  /** An ORDER BY key: a column read from doc values, or (column null) an expression evaluated on each row. */
  private record SortKey(Column column, Expr expression, boolean descending) {}

  private static List<SortKey> sortKeys(io.evenkeel.schemas.shard.Query request) {
    List<SortKey> keys = new ArrayList<>();
    for (io.evenkeel.schemas.shard.SortField field : request.getSortList()) {
      if (field.hasExpression()) {
        if (!field.getField().isEmpty()) {
          throw new IllegalArgumentException("a sort key is a field or an expression, not both");
        }
        keys.add(new SortKey(null, ExpressionCodec.decode(field.getExpression()), field.getDescending()));
        continue;
      }
      Column column = TransactionLogsTable.require(field.getField());
      if (!column.hasDocValues()) {
        throw new IllegalArgumentException("cannot sort by " + column.name() + " (" + column.type() + ")");
      }
      keys.add(new SortKey(column, null, field.getDescending()));
    }
    return keys;
  }

  /** The requested order, then (tenant_id, row_id): a total order that every shard and the merger agree on. */
  private static Sort sort(List<SortKey> keys, RowConditions conditions, MemoryBudget.Reservation memory) {
    List<SortField> fields = new ArrayList<>();
    for (SortKey key : keys) {
      fields.add(key.column() != null ? sortField(key.column(), key.descending())
          : ExpressionSort.of(key.expression(), key.descending(), conditions, memory));
    }
    fields.add(sortField(TENANT_ID, false));
    fields.add(sortField(ROW_ID, false));
    return new Sort(fields.toArray(SortField[]::new));
  }

  /** NULLs first ascending and last descending, as in MySQL: the missing value sorts lowest either way. */
  private static SortField sortField(Column column, boolean descending) {
    if (column.isNumeric()) {
      SortField field = new SortField(column.name(), SortField.Type.LONG, descending);
      field.setMissingValue(Long.MIN_VALUE);
      return field;
    }
    SortField field = new SortField(column.name(), SortField.Type.STRING, descending);
    field.setMissingValue(SortField.STRING_FIRST);
    return field;
  }

  private static Hit.Builder hit(FieldDoc doc, List<SortKey> sortKeys, StoredFields stored) throws IOException {
    Object[] values = doc.fields;
    Hit.Builder hit = Hit.newBuilder()
        .setTenantId((Long) values[values.length - 2])
        .setRowId((Long) values[values.length - 1]);
    for (int i = 0; i < sortKeys.size(); i++) {
      Column column = sortKeys.get(i).column();
      hit.addSortValues(column != null ? FieldValues.toValue(column, sortValue(values[i]))
          : SqlValueCodec.encode(values[i]));
    }
    if (stored != null) {
      BytesRef source = stored.document(doc.doc).getBinaryValue(IndexFields.SOURCE);
      hit.setRow(com.google.protobuf.ByteString.copyFrom(source.bytes, source.offset, source.length));
    }
    return hit;
  }

  /** Lucene reports a missing long as the missing value and a missing string as null: both are NULL here. */
  private static Object sortValue(Object value) {
    if (value instanceof BytesRef bytes) {
      return bytes.utf8ToString();
    }
    if (value instanceof Long number && number == Long.MIN_VALUE) {
      return null;
    }
    return value;
  }
}
