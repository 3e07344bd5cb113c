package io.evenkeel.shard.search;

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
import java.util.Set;
import java.util.TreeSet;
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

  private static final Column TENANT_ID = TransactionLogsTable.require("tenant_id");
  private static final Column ROW_ID = TransactionLogsTable.require("row_id");

  private ShardSearch() {}

  /** Runs a query that filters on no attribute field. */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request) throws IOException {
    return run(searcher, request, Set.of());
  }

  /** Runs a query; its attribute fields ({@code attr.<key>}) must be among the shard's {@code hotAttributes}. */
  public static SearchResponse run(IndexSearcher searcher, io.evenkeel.schemas.shard.Query request,
      Set<String> hotAttributes) throws IOException {
    long started = System.nanoTime();
    if (request.hasFilter()) {
      requireIndexedAttributes(request.getFilter(), hotAttributes);
    }
    if (request.getLimit() < 0 || request.getLimit() > MAX_HITS) {
      throw new IllegalArgumentException("limit must be in [0, " + MAX_HITS + "]; got: " + request.getLimit());
    }
    Query query = QueryTranslator.liveRows(request.hasFilter() ? request.getFilter() : null);
    SearchResponse.Builder response = SearchResponse.newBuilder();
    List<Column> sortColumns = sortColumns(request);
    List<Column> columns = DocValuesColumns.require(request.getColumnsList());
    Sort sort = sort(request, sortColumns);
    if (request.getAggregationsCount() > 0 || request.getGroupByCount() > 0) {
      response.addAllBuckets(searcher.search(query, new Aggregator(request.getGroupByList(),
          request.getAggregationsList())));
    }
    if (request.getLimit() > 0) {
      ScoreDoc[] top = request.getOrderedByComposite()
          ? CompositeOrderSearch.topHits(searcher, request, sort).toArray(ScoreDoc[]::new)
          : searcher.search(query, request.getLimit(), sort).scoreDocs;
      StoredFields stored = request.getIncludeRows() ? searcher.storedFields() : null;
      List<List<Value>> hitColumns = columns.isEmpty() ? null : DocValuesColumns.read(searcher.getIndexReader(),
          Arrays.stream(top).mapToInt(doc -> doc.doc).toArray(), columns);
      for (int i = 0; i < top.length; i++) {
        Hit.Builder hit = hit((FieldDoc) top[i], sortColumns, stored);
        response.addHits(hitColumns == null ? hit : hit.addAllColumns(hitColumns.get(i)));
      }
    }
    if (request.getTrackTotal()) {
      response.setTotal(searcher.count(query));
    }
    return response.setTookMicros((System.nanoTime() - started) / 1_000).build();
  }

  /**
   * A filter on an attribute key that is not hot would silently match nothing here (the key has no field): refuse it,
   * so that a caller configured with another hot list finds out at once.
   */
  private static void requireIndexedAttributes(Filter filter, Set<String> hotAttributes) {
    String field = switch (filter.getKindCase()) {
      case TERM -> filter.getTerm().getField();
      case TERMS -> filter.getTerms().getField();
      case RANGE -> filter.getRange().getField();
      case LIKE -> filter.getLike().getField();
      case EXISTS -> filter.getExists().getField();
      default -> "";
    };
    if (field.startsWith(IndexFields.ATTRIBUTE_PREFIX)
        && !hotAttributes.contains(field.substring(IndexFields.ATTRIBUTE_PREFIX.length()))) {
      throw new IllegalArgumentException("attribute key '" + field.substring(IndexFields.ATTRIBUTE_PREFIX.length())
          + "' is not indexed on this shard server (hot attributes: " + new TreeSet<>(hotAttributes)
          + "); filter it by scanning the rows' attributes");
    }
    if (filter.getKindCase() == Filter.KindCase.BOOL) {
      Bool bool = filter.getBool();
      bool.getMustList().forEach(f -> requireIndexedAttributes(f, hotAttributes));
      bool.getShouldList().forEach(f -> requireIndexedAttributes(f, hotAttributes));
      bool.getMustNotList().forEach(f -> requireIndexedAttributes(f, hotAttributes));
    }
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
