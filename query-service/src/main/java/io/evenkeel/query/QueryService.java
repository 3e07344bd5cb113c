package io.evenkeel.query;

import io.evenkeel.query.expr.Evaluator;
import io.evenkeel.query.expr.TableRow;
import io.evenkeel.query.merge.Groups;
import io.evenkeel.query.merge.RowMerger;
import io.evenkeel.query.merge.ValueOrder;
import io.evenkeel.query.optimize.Optimizer;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.optimize.PlanPrinter;
import io.evenkeel.query.optimize.QueryPlan;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.StatementParser;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.query.result.QueryResult;
import io.evenkeel.query.result.ShardFailure;
import io.evenkeel.query.route.Route;
import io.evenkeel.query.route.ShardClients;
import io.evenkeel.query.route.ShardRouter;
import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.FetchResponse;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.schemas.shard.SearchResponse;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Answers SQL on {@code transaction_logs} from the shard servers: parse, optimize, route, query the shards in
 * parallel under one deadline, merge. Thread-safe; one instance serves every request.
 */
public final class QueryService implements AutoCloseable {
  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);

  private final ShardRouter router;
  private final ShardClients clients;
  private final Optimizer optimizer;
  private final Duration deadline;
  private final AttributeFrequency attributeFrequency = new AttributeFrequency();

  private QueryService(Builder builder) {
    this.router = new ShardRouter(builder.routingPolicy);
    this.clients = new ShardClients(builder.placement);
    this.optimizer = new Optimizer(builder.optimizer);
    this.deadline = builder.deadline;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options with defaults; {@link #build()} checks them. */
  public static final class Builder {
    private ShardPlacement placement;
    private Supplier<RoutingPolicy> routingPolicy;
    private OptimizerSettings optimizer = OptimizerSettings.defaults();
    private Duration deadline = Duration.ofSeconds(5);

    private Builder() {}

    /** Where each shard's primary is (required). */
    public Builder placement(ShardPlacement placement) {
      this.placement = placement;
      return this;
    }

    /** The routing policy, read per query so that rule-list changes apply to the next one (required). */
    public Builder routingPolicy(Supplier<RoutingPolicy> routingPolicy) {
      this.routingPolicy = routingPolicy;
      return this;
    }

    public Builder optimizer(OptimizerSettings settings) {
      this.optimizer = settings;
      return this;
    }

    /** How long one query may wait for its shards, both phases together (default 5 s). */
    public Builder deadline(Duration deadline) {
      this.deadline = deadline;
      return this;
    }

    public QueryService build() {
      if (placement == null) {
        throw new IllegalArgumentException("a shard placement is required");
      }
      if (routingPolicy == null) {
        throw new IllegalArgumentException("a routing policy is required");
      }
      Objects.requireNonNull(optimizer, "optimizer settings");
      if (deadline == null || deadline.isNegative() || deadline.isZero()) {
        throw new IllegalArgumentException("the deadline must be positive; got: " + deadline);
      }
      int policyShards = routingPolicy.get().numShards();
      if (policyShards != placement.numShards()) {
        throw new IllegalArgumentException("the routing policy has " + policyShards
            + " shards but the placement has " + placement.numShards());
      }
      return new QueryService(this);
    }
  }

  /**
   * Runs one statement. With {@code allowPartial}, shards that fail are reported in the result instead of failing
   * the query with a 504.
   */
  public QueryResult execute(String sql, List<Object> params, boolean allowPartial) {
    long started = System.nanoTime();
    SelectStatement statement = StatementParser.parse(sql, params);
    attributeFrequency.record(statement);
    QueryPlan plan = optimizer.plan(statement);
    Route route = router.route(plan.where());
    if (statement.explain()) {
      List<List<Object>> lines = new ArrayList<>();
      PlanPrinter.lines(plan, route.reason()).forEach(line -> lines.add(List.of(line)));
      return new QueryResult(List.of("plan"), lines, elapsedMs(started), 0, List.of(), 0);
    }
    Execution execution = new Execution(plan, route, allowPartial,
        Deadline.after(deadline.toMillis(), TimeUnit.MILLISECONDS));
    List<List<Object>> rows = execution.run();
    List<String> columns = new ArrayList<>();
    statement.items().forEach(item -> columns.add(item.label()));
    return new QueryResult(columns, rows, elapsedMs(started), route.size(), execution.failures,
        execution.shardSearchMicros);
  }

  /** Attribute keys by how often queries filtered or read them: the input for choosing hot keys. */
  public AttributeFrequency attributeFrequency() {
    return attributeFrequency;
  }

  public OptimizerSettings optimizerSettings() {
    return optimizer.settings();
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  /** One query's run against its shards. */
  private final class Execution {
    private final QueryPlan plan;
    private final SelectStatement statement;
    private final int[] shards;
    private final boolean allowPartial;
    private final Deadline deadline;
    private final Evaluator evaluator = new Evaluator();
    private final List<ShardFailure> failures = new ArrayList<>();
    private long shardSearchMicros;

    Execution(QueryPlan plan, Route route, boolean allowPartial, Deadline deadline) {
      this.plan = plan;
      this.statement = plan.statement();
      this.shards = route.shards();
      this.allowPartial = allowPartial;
      this.deadline = deadline;
    }

    List<List<Object>> run() {
      return switch (plan.mode()) {
        case TWO_PHASE -> twoPhase();
        case ROWS -> RowMerger.sortAndProject(fetchCandidates(), statement, evaluator);
        case AGGREGATE_ON_SHARDS -> aggregateOnShards();
        case AGGREGATE_ROWS -> {
          Groups groups = new Groups(statement, plan.aggregates(), evaluator);
          fetchCandidates().forEach(groups::add);
          yield groups.rows();
        }
      };
    }

    /**
     * Phase one: every shard's top ids and sort keys; merge; phase two: fetch only the page's rows. When doc values
     * cover the select list, the hits carry their columns and are the rows: no phase two.
     */
    private List<List<Object>> twoPhase() {
      Query query = Query.newBuilder().setFilter(plan.filter()).addAllSort(plan.sort())
          .setLimit(plan.hitsPerShard()).setOrderedByComposite(plan.orderedByComposite())
          .addAllColumns(plan.hitColumns()).build();
      Map<Integer, SearchResponse> responses = search(query);
      List<RowMerger.ShardHit> hits = new ArrayList<>();
      responses.forEach((shard, response) -> {
        for (Hit hit : response.getHitsList()) {
          List<Object> sortValues = new ArrayList<>(hit.getSortValuesCount());
          hit.getSortValuesList().forEach(value -> sortValues.add(ValueOrder.fromShard(value)));
          hits.add(new RowMerger.ShardHit(shard, hit, sortValues));
        }
      });
      List<RowMerger.ShardHit> page = RowMerger.topHits(hits, statement);
      if (page.isEmpty()) {
        return List.of();
      }
      if (!plan.hitColumns().isEmpty()) {
        return RowMerger.project(page.stream().map(this::rowOfColumns).toList(), statement, evaluator);
      }
      Map<Integer, List<RowId>> idsByShard = new LinkedHashMap<>();
      for (RowMerger.ShardHit hit : page) {
        idsByShard.computeIfAbsent(hit.shard(), s -> new ArrayList<>()).add(RowId.newBuilder()
            .setTenantId(hit.hit().getTenantId()).setRowId(hit.hit().getRowId()).build());
      }
      ShardClients.FanOut<FetchResponse> fetched = clients.fetch(idsByShard, deadline);
      handleFailures(fetched.failures());
      Map<List<Long>, TableRow> byId = new HashMap<>();
      fetched.responses().values().forEach(response -> response.getRowsList().forEach(bytes -> {
        TableRow row = decode(bytes.toByteArray());
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

    /** A covered hit as a row: the columns the shard read from doc values. */
    private TableRow rowOfColumns(RowMerger.ShardHit hit) {
      List<Object> values = new ArrayList<>(hit.hit().getColumnsCount());
      hit.hit().getColumnsList().forEach(value -> values.add(ValueOrder.fromShard(value)));
      return TableRow.ofColumns(hit.hit().getTenantId(), hit.hit().getRowId(), plan.hitColumns(), values);
    }

    private List<List<Object>> aggregateOnShards() {
      Query query = Query.newBuilder().setFilter(plan.filter()).addAllAggregations(plan.shardAggregations())
          .addAllGroupBy(plan.shardGroupBy()).build();
      Groups groups = new Groups(statement, plan.aggregates(), evaluator);
      search(query).values().forEach(response -> response.getBucketsList().forEach(groups::add));
      return groups.rows();
    }

    /** Every row the shard filter selects, filtered by the whole WHERE clause when part of it is a service scan. */
    private List<TableRow> fetchCandidates() {
      Query query = Query.newBuilder().setFilter(plan.filter()).setLimit(Optimizer.MAX_HITS_PER_SHARD)
          .setIncludeRows(true).setTrackTotal(true).build();
      List<TableRow> rows = new ArrayList<>();
      search(query).forEach((shard, response) -> {
        if (response.getTotal() > response.getHitsCount()) {
          throw QueryException.invalid("the query needs all " + response.getTotal() + " candidate rows of shard "
              + shard + " and at most " + Optimizer.MAX_HITS_PER_SHARD + " can be read per shard; narrow the WHERE "
              + "clause with indexed columns (EXPLAIN shows which)");
        }
        for (Hit hit : response.getHitsList()) {
          TableRow row = decode(hit.getRow().toByteArray());
          if (!plan.serviceFilter() || evaluator.isTrue(statement.where(), row)) {
            rows.add(row);
          }
        }
      });
      return rows;
    }

    private Map<Integer, SearchResponse> search(Query query) {
      ShardClients.FanOut<SearchResponse> fanOut = clients.search(shards, deadline, query);
      handleFailures(fanOut.failures());
      fanOut.responses().values().forEach(response -> shardSearchMicros += response.getTookMicros());
      return fanOut.responses();
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

  private static TableRow decode(byte[] bytes) {
    try {
      return TableRow.of(ROWS.decode(bytes));
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("a shard returned a row that is not a TransactionLogChange: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    clients.close();
  }
}
