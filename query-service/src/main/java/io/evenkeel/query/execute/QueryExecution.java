package io.evenkeel.query.execute;

import io.evenkeel.cluster.memory.ByteSize;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.expr.TableRow;
import io.evenkeel.query.merge.Groups;
import io.evenkeel.query.merge.RowMerger;
import io.evenkeel.query.optimize.Optimizer;
import io.evenkeel.query.optimize.QueryPlan;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.query.result.ShardFailure;
import io.evenkeel.query.route.Route;
import io.evenkeel.query.route.ShardClients;
import io.evenkeel.schemas.shard.FetchResponse;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.schemas.shard.SearchResponse;
import io.grpc.Deadline;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One query's run against its shards: the plan's mode decides the shard calls (two phases, candidate rows, or
 * partial aggregates), then the rows are merged. Shard failures fail the query unless a partial answer is allowed;
 * then they are collected in {@link #failures()}. The shards' answers are reserved against the query's memory
 * budget as they come (with what is made of them), and the answer may hold at most {@code maxResultRows} rows. One
 * instance per query.
 */
public final class QueryExecution {
  private final ShardClients clients;
  private final QueryPlan plan;
  /** Whom the query is for: the shard servers take turns between parties. */
  private final String party;
  private final SelectStatement statement;
  private final int[] shards;
  private final boolean allowPartial;
  private final Deadline deadline;
  /**
   * The heap a shard's answer takes in the service for each of its serialized bytes: the message, what is decoded
   * from it (rows, values) and what is merged from that.
   */
  private static final int ANSWER_BYTES_PER_BYTE = 3;

  private final Evaluator evaluator;
  private final ZoneId timeZone;
  private final List<ShardFailure> failures = new ArrayList<>();
  private final MemoryBudget.Reservation memory;
  private final long maxResultRows;
  private long shardSearchMicros;
  private List<Object> lastPosition;

  public QueryExecution(ShardClients clients, QueryPlan plan, Route route, String party, boolean allowPartial,
      Deadline deadline, MemoryBudget.Reservation memory, long maxResultRows, ZoneId timeZone) {
    this.party = party;
    this.clients = clients;
    this.plan = plan;
    this.statement = plan.statement();
    this.shards = route.shards();
    this.allowPartial = allowPartial;
    this.deadline = deadline;
    this.memory = memory;
    this.maxResultRows = maxResultRows;
    // Text that CONCAT, REPLACE or LPAD build counts as the memory it takes (2 bytes a char): a query that would
    // build gigabytes of it gets the budget's 400 or 429, not the service's heap.
    this.timeZone = timeZone;
    this.evaluator = new Evaluator((chars, function) -> reserveBytes(2 * chars, () -> "text built by " + function),
        timeZone);
  }

  /**
   * A shard query of the plan's filter, with what its row conditions need: the session time zone, and the text
   * they may build (what the query's memory budget would let the service build, at 2 bytes a character).
   */
  private Query.Builder shardQuery() {
    long limit = memory.requestLimit();
    return Query.newBuilder().setFilter(plan.filter()).setTimeZone(timeZone.getId())
        .setMaxBuiltTextChars(limit == Long.MAX_VALUE ? 0 : limit / 2);
  }

  /** The output rows, in order; a 400 when there are more than {@code maxResultRows}. */
  public List<List<Object>> run() {
    List<List<Object>> rows = rows();
    if (rows.size() > maxResultRows) {
      throw tooManyRows(rows.size(), maxResultRows);
    }
    return rows;
  }

  /** The 400 of an answer of {@code rows} rows when at most {@code maxResultRows} are returned. */
  public static QueryException tooManyRows(long rows, long maxResultRows) {
    return QueryException.invalid("the answer has " + rows + " rows and at most " + maxResultRows + " are returned "
        + "(--max-result-rows); add a LIMIT (a full page answers with a \"cursor\" to the next one) or narrow the "
        + "WHERE clause");
  }

  private List<List<Object>> rows() {
    return switch (plan.mode()) {
      case TWO_PHASE -> twoPhase();
      case ROWS -> {
        List<RowMerger.SortedRow> page = RowMerger.sortedPage(fetchCandidates(), statement, evaluator);
        if (!page.isEmpty()) {
          RowMerger.SortedRow last = page.get(page.size() - 1);
          remember(page.size(), last.keys(), last.row().tenantId(), last.row().rowId());
        }
        yield RowMerger.project(page.stream().map(RowMerger.SortedRow::row).toList(), statement, evaluator);
      }
      case AGGREGATE_ON_SHARDS -> aggregateOnShards();
      case AGGREGATE_ROWS -> {
        Groups groups = new Groups(statement, plan.aggregates(), evaluator);
        fetchCandidates().forEach(groups::add);
        yield groups.rows();
      }
    };
  }

  /**
   * Where the page's last row stands in the query's total order (its ORDER BY keys' values, then tenant_id and
   * row_id) when the page is full, so that more rows may follow; null otherwise.
   */
  public List<Object> lastPosition() {
    return lastPosition;
  }

  private void remember(int pageSize, List<Object> keys, long tenantId, long rowId) {
    if (statement.limit() != null && pageSize == statement.limit()) {
      List<Object> position = new ArrayList<>(keys);
      position.add(tenantId);
      position.add(rowId);
      lastPosition = position;
    }
  }

  /** The shards that failed, when a partial answer is allowed (empty otherwise: a failure throws). */
  public List<ShardFailure> failures() {
    return failures;
  }

  /** The shards' own search time, summed over the shards. */
  public long shardSearchMicros() {
    return shardSearchMicros;
  }

  /**
   * Phase one: every shard's top ids and sort keys; merge; phase two: fetch only the page's rows. When doc values
   * cover the select list, the hits carry their columns and are the rows; on a single shard they carry the rows
   * themselves ({@link QueryPlan#rowsInHits}): no phase two either way.
   */
  private List<List<Object>> twoPhase() {
    if (statement.end() > plan.hitsPerShard() && beyondEveryMatch()) {
      return List.of();
    }
    boolean rowsInHits = plan.rowsInHits(shards.length);
    Query query = shardQuery().addAllSort(plan.sort())
        .setLimit(plan.hitsPerShard()).setOrderedByComposite(plan.orderedByComposite())
        .addAllColumns(plan.hitColumns()).setIncludeRows(rowsInHits).build();
    Map<Integer, SearchResponse> responses = search(query);
    long wanted = statement.end();
    if (wanted > plan.hitsPerShard()
        && responses.values().stream().anyMatch(response -> response.getHitsCount() >= plan.hitsPerShard())) {
      // Every shard that returned fewer hits than asked returned all its matches: only then is a deep page exact.
      throw deepPage();
    }
    List<RowMerger.ShardHit> hits = new ArrayList<>();
    responses.forEach((shard, response) -> {
      for (Hit hit : response.getHitsList()) {
        List<Object> sortValues = new ArrayList<>(hit.getSortValuesCount());
        hit.getSortValuesList().forEach(value -> sortValues.add(SqlValueCodec.decode(value)));
        hits.add(new RowMerger.ShardHit(shard, hit, sortValues));
      }
    });
    List<RowMerger.ShardHit> page = RowMerger.topHits(hits, statement);
    if (page.isEmpty()) {
      return List.of();
    }
    RowMerger.ShardHit last = page.get(page.size() - 1);
    remember(page.size(), last.sortValues(), last.hit().getTenantId(), last.hit().getRowId());
    if (!plan.hitColumns().isEmpty()) {
      return RowMerger.project(page.stream().map(this::rowOfColumns).toList(), statement, evaluator);
    }
    if (rowsInHits) {
      return RowMerger.project(page.stream().map(hit -> RowDecoder.decode(hit.hit().getRow().toByteArray())).toList(),
          statement, evaluator);
    }
    Map<Integer, List<RowId>> idsByShard = new LinkedHashMap<>();
    for (RowMerger.ShardHit hit : page) {
      idsByShard.computeIfAbsent(hit.shard(), s -> new ArrayList<>()).add(RowId.newBuilder()
          .setTenantId(hit.hit().getTenantId()).setRowId(hit.hit().getRowId()).build());
    }
    ShardClients.FanOut<FetchResponse> fetched = clients.fetch(idsByShard, deadline, party,
        bytes -> reserve(bytes, "fetched rows"));
    handleFailures(fetched.failures());
    Map<List<Long>, TableRow> byId = new HashMap<>();
    fetched.responses().values().forEach(response -> response.getRowsList().forEach(bytes -> {
      TableRow row = RowDecoder.decode(bytes.toByteArray());
      byId.put(List.of(row.tenantId(), row.rowId()), row);
    }));
    List<TableRow> rows = new ArrayList<>(page.size());
    for (RowMerger.ShardHit hit : page) {
      // A row deleted between the phases is gone: skip it rather than show a stale one.
      TableRow row = byId.get(List.of(hit.hit().getTenantId(), hit.hit().getRowId()));
      if (row != null) {
        rows.add(row);
      }
    }
    return RowMerger.project(rows, statement, evaluator);
  }

  /**
   * For a page deeper than the shards return hits: counts the matches first (cheap, without sorting or reading
   * anything), so that an OFFSET past every match answers no rows at once, as MySQL does, and a page the shards
   * cannot reach is refused at once; true when the page starts after every match.
   */
  private boolean beyondEveryMatch() {
    Map<Integer, SearchResponse> counts = search(shardQuery().setTrackTotal(true)
        .build());
    long matches = counts.values().stream().mapToLong(SearchResponse::getTotal).sum();
    if (matches <= statement.offset()) {
      return true;
    }
    if (counts.values().stream().anyMatch(count -> count.getTotal() >= plan.hitsPerShard())) {
      throw deepPage();
    }
    return false;
  }

  private QueryException deepPage() {
    return QueryException.invalid("LIMIT + OFFSET is " + statement.end() + " and a shard has more than "
        + plan.hitsPerShard() + " matching rows; at most " + Optimizer.MAX_HITS_PER_SHARD + " rows per shard can "
        + "be paged through by OFFSET: follow the answers' \"cursor\" instead, or page by the sort key (WHERE "
        + "<sort column> < <its value in the last row> ... LIMIT n)");
  }

  /** A covered hit as a row: the columns the shard read from doc values. */
  private TableRow rowOfColumns(RowMerger.ShardHit hit) {
    List<Object> values = new ArrayList<>(hit.hit().getColumnsCount());
    hit.hit().getColumnsList().forEach(value -> values.add(SqlValueCodec.decode(value)));
    return TableRow.ofColumns(hit.hit().getTenantId(), hit.hit().getRowId(), plan.hitColumns(), values);
  }

  private List<List<Object>> aggregateOnShards() {
    // The shards stop at the caps the merge applies: one shard over them is enough to know the answer is.
    Query.Builder query = shardQuery().addAllAggregations(plan.shardAggregations())
        .setMaxGroups(Groups.MAX_GROUPS).setMaxDistinctValues(Groups.MAX_DISTINCT_VALUES);
    List<String> columns = plan.shardGroupByColumns();
    if (columns != null) {
      query.addAllGroupBy(columns);
    } else {
      plan.shardGroupBy().forEach(key -> query.addGroupByExpressions(ExpressionCodec.encode(key)));
    }
    Groups groups = new Groups(statement, plan.aggregates(), evaluator);
    search(query.build()).values().forEach(response -> response.getBucketsList().forEach(groups::add));
    return groups.rows();
  }

  /** Every row the shard filter selects, filtered by the whole WHERE clause when part of it is a service scan. */
  private List<TableRow> fetchCandidates() {
    Query query = shardQuery().setLimit(Optimizer.MAX_HITS_PER_SHARD)
        .setIncludeRows(true).setTrackTotal(true).build();
    List<TableRow> rows = new ArrayList<>();
    search(query).forEach((shard, response) -> {
      if (response.getTotal() > response.getHitsCount()) {
        throw QueryException.invalid("the query needs all " + response.getTotal() + " candidate rows of shard "
            + shard + " and at most " + Optimizer.MAX_HITS_PER_SHARD + " can be read per shard; narrow the WHERE "
            + "clause with indexed columns (EXPLAIN shows which)");
      }
      for (Hit hit : response.getHitsList()) {
        TableRow row = RowDecoder.decode(hit.getRow().toByteArray());
        if (!plan.serviceFilter() || evaluator.isTrue(statement.where(), row)) {
          rows.add(row);
        }
      }
    });
    return rows;
  }

  private Map<Integer, SearchResponse> search(Query query) {
    ShardClients.FanOut<SearchResponse> fanOut = clients.search(shards, deadline, query, party,
        bytes -> reserve(bytes, "the shards' answers"));
    handleFailures(fanOut.failures());
    fanOut.responses().values().forEach(response -> shardSearchMicros += response.getTookMicros());
    return fanOut.responses();
  }

  /**
   * Reserves what a server's answer of {@code serializedBytes} takes here, as it comes; a 400 or 429 when over the
   * budget.
   */
  private void reserve(long serializedBytes, String what) {
    // Described only when refused: formatting it for every answer took 7% of a small query's CPU here.
    reserveBytes(ANSWER_BYTES_PER_BYTE * serializedBytes, () -> what + " (" + ByteSize.format(serializedBytes)
        + " from a server)");
  }

  /** Reserves {@code bytes} for {@code what}; a 400 when over the request's budget, a 429 when over the service's. */
  private void reserveBytes(long bytes, Supplier<String> what) {
    try {
      memory.reserve(bytes, what);
    } catch (MemoryBudget.Exceeded e) {
      throw e.perRequest()
          ? QueryException.invalid(e.getMessage() + "; add a LIMIT, narrow the WHERE clause, or page by a sort key")
          : QueryException.overloaded(e.getMessage() + "; retry shortly");
    }
  }

  private void handleFailures(List<ShardFailure> newFailures) {
    if (newFailures.isEmpty()) {
      return;
    }
    if (!allowPartial) {
      throw QueryException.shardsFailed(shards.length, newFailures);
    }
    failures.addAll(newFailures);
  }
}
