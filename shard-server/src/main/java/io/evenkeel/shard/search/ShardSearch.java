package io.evenkeel.shard.search;

import io.evenkeel.router.memory.MemoryBudget;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Filter;
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
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.util.BytesRef;

/** Runs a structured query on one shard's searcher: top hits in sort order, aggregate buckets, a total. */
public final class ShardSearch {
  /** The most hits one request may ask for (offset included: deeper pages need a narrower query). */
  public static final int MAX_HITS = 100_000;

  /** A hit's heap besides its row: its queue entry, its message and its sort values. */
  private static final long HIT_BYTES = 160;

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
    long started = System.nanoTime();
    if (request.getLimit() < 0 || request.getLimit() > MAX_HITS) {
      throw new IllegalArgumentException("limit must be in [0, " + MAX_HITS + "]; got: " + request.getLimit());
    }
    Query query = QueryTranslator.liveRows(request.hasFilter() ? request.getFilter() : null);
    SearchResponse.Builder response = SearchResponse.newBuilder();
    List<Column> sortColumns = sortColumns(request);
    List<Column> columns = DocValuesColumns.require(request.getColumnsList());
    Sort sort = sort(request, sortColumns);
    if (request.getAggregationsCount() > 0 || request.getGroupByCount() > 0) {
      response.addAllBuckets(searcher.search(query, new Aggregator(request, memory)));
    }
    if (request.getLimit() > 0) {
      // The top-hits queue's array is allocated whole (never longer than the shard has documents); its entries only
      // for the hits that match.
      long queue = Math.min(request.getLimit(), Math.max(1, searcher.getIndexReader().maxDoc()));
      memory.reserve(8 * queue, String.format("a queue of the top %,d hits", queue));
      ScoreDoc[] top = request.getOrderedByComposite()
          ? CompositeOrderSearch.topHits(searcher, request, sort).toArray(ScoreDoc[]::new)
          : searcher.search(query, request.getLimit(), sort).scoreDocs;
      memory.reserve((long) top.length * HIT_BYTES, String.format("%,d hits", top.length));
      StoredFields stored = request.getIncludeRows() ? searcher.storedFields() : null;
      List<List<Value>> hitColumns = columns.isEmpty() ? null : DocValuesColumns.read(searcher.getIndexReader(),
          Arrays.stream(top).mapToInt(doc -> doc.doc).toArray(), columns);
      for (int i = 0; i < top.length; i++) {
        Hit.Builder hit = hit((FieldDoc) top[i], sortColumns, stored);
        if (stored != null) {
          // The row's bytes, in the hit and again in the serialized answer.
          memory.reserve(2L * hit.getRow().size(), String.format("the stored rows of %,d hits", i + 1));
        }
        response.addHits(hitColumns == null ? hit : hit.addAllColumns(hitColumns.get(i)));
      }
    }
    if (request.getTrackTotal()) {
      response.setTotal(searcher.count(query));
    }
    return response.setTookMicros((System.nanoTime() - started) / 1_000).build();
  }

  private static List<Column> sortColumns(io.evenkeel.schemas.shard.Query request) {
    List<Column> columns = new ArrayList<>();
    for (io.evenkeel.schemas.shard.SortField field : request.getSortList()) {
      Column column = TransactionLogsTable.require(field.getField());
      if (!column.hasDocValues()) {
        throw new IllegalArgumentException("cannot sort by " + column.name() + " (" + column.type() + ")");
      }
      columns.add(column);
    }
    return columns;
  }

  /** The requested order, then (tenant_id, row_id): a total order that every shard and the merger agree on. */
  private static Sort sort(io.evenkeel.schemas.shard.Query request, List<Column> columns) {
    List<SortField> fields = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      fields.add(sortField(columns.get(i), request.getSort(i).getDescending()));
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

  private static Hit.Builder hit(FieldDoc doc, List<Column> sortColumns, StoredFields stored) throws IOException {
    Object[] values = doc.fields;
    Hit.Builder hit = Hit.newBuilder()
        .setTenantId((Long) values[values.length - 2])
        .setRowId((Long) values[values.length - 1]);
    for (int i = 0; i < sortColumns.size(); i++) {
      hit.addSortValues(FieldValues.toValue(sortColumns.get(i), sortValue(values[i])));
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
