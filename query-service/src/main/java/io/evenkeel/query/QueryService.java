package io.evenkeel.query;

import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.query.admission.TenantSlots;
import io.evenkeel.query.auth.Access;
import io.evenkeel.query.auth.TenantRestriction;
import io.evenkeel.query.cursor.Cursor;
import io.evenkeel.query.cursor.Keyset;
import io.evenkeel.query.execute.QueryExecution;
import io.evenkeel.query.http.SqlService;
import io.evenkeel.query.optimize.Optimizer;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.optimize.PlanPrinter;
import io.evenkeel.query.optimize.QueryPlan;
import io.evenkeel.query.merge.UnionRows;
import io.evenkeel.query.parse.AttributeFrequency;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.Statement;
import io.evenkeel.query.parse.StatementParser;
import io.evenkeel.query.parse.UnionStatement;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.query.result.QueryResult;
import io.evenkeel.query.result.ShardFailure;
import io.evenkeel.query.route.Route;
import io.evenkeel.query.route.ShardClients;
import io.evenkeel.query.route.ShardRouter;
import io.evenkeel.router.policy.RoutingPolicy;
import io.grpc.Deadline;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Answers SQL on {@code transaction_logs} from the shard servers: parse, optimize, route, query the shards in
 * parallel under one deadline, merge. Thread-safe; one instance serves every request.
 */
public final class QueryService implements SqlService, AutoCloseable {
  private final ShardRouter router;
  private final ShardClients clients;
  /** Replaced whole when the hot attribute list changes; each query plans with the one it read. */
  private volatile Optimizer optimizer;
  private final Duration deadline;
  private final MemoryBudget memory;
  private final long maxResultRows;
  private final TenantSlots tenantSlots;
  private final Supplier<String> staleRules;
  private final AttributeFrequency attributeFrequency = new AttributeFrequency();

  private QueryService(Builder builder) {
    this.router = new ShardRouter(builder.routingPolicy);
    this.clients = new ShardClients(builder.placement, builder.tls);
    this.optimizer = new Optimizer(builder.optimizer);
    this.deadline = builder.deadline;
    this.memory = builder.memory != null ? builder.memory : MemoryBudget.ofHeap(MEMORY_FLAG, REQUEST_MEMORY_FLAG);
    this.maxResultRows = builder.maxResultRows;
    this.tenantSlots = new TenantSlots(builder.maxConcurrentPerTenant);
    this.staleRules = builder.staleRules;
  }

  /** The flag of the memory all running queries together may hold in the service. */
  public static final String MEMORY_FLAG = "--query-memory";
  /** The flag of the memory one query may hold in the service. */
  public static final String REQUEST_MEMORY_FLAG = "--request-query-memory";
  /** Queries one tenant may run at once by default: a quarter of the HTTP server's default slots. */
  public static final int DEFAULT_MAX_CONCURRENT_PER_TENANT = 8;
  /** The most rows an answer holds by default: beyond that, a client pages. */
  public static final long DEFAULT_MAX_RESULT_ROWS = 100_000;

  public static Builder builder() {
    return new Builder();
  }

  /** Options with defaults; {@link #build()} checks them. */
  public static final class Builder {
    private ShardPlacement placement;
    private Supplier<RoutingPolicy> routingPolicy;
    private OptimizerSettings optimizer = OptimizerSettings.defaults();
    private Duration deadline = Duration.ofSeconds(5);
    private MemoryBudget memory;
    private long maxResultRows = DEFAULT_MAX_RESULT_ROWS;
    private int maxConcurrentPerTenant = DEFAULT_MAX_CONCURRENT_PER_TENANT;
    private ClientTls tls;
    private Supplier<String> staleRules = () -> null;

    private Builder() {}

    /**
     * Why the routing rules may be out of date now, or null when they are current: answers carry it (default: never
     * stale, for fixed policies).
     */
    public Builder staleRules(Supplier<String> staleRules) {
      this.staleRules = Objects.requireNonNull(staleRules);
      return this;
    }

    /** Mutual TLS to the shard servers (default: plaintext). */
    public Builder tls(ClientTls tls) {
      this.tls = tls;
      return this;
    }

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

    /**
     * What the shards' answers and what is made of them may hold in the service: each query, and all together
     * (default: {@link MemoryBudget#ofHeap}).
     */
    public Builder memory(MemoryBudget memory) {
      this.memory = Objects.requireNonNull(memory);
      return this;
    }

    /** The most rows one answer may hold (default {@link #DEFAULT_MAX_RESULT_ROWS}); more is a 400. */
    public Builder maxResultRows(long maxResultRows) {
      this.maxResultRows = maxResultRows;
      return this;
    }

    /**
     * The queries one tenant key, or one tenant a query names, may run at once (default {@link
     * #DEFAULT_MAX_CONCURRENT_PER_TENANT}); more get a 429.
     */
    public Builder maxConcurrentPerTenant(int queries) {
      this.maxConcurrentPerTenant = queries;
      return this;
    }

    public QueryService build() {
      if (maxResultRows < 1) {
        throw new IllegalArgumentException("--max-result-rows must be at least 1; got: " + maxResultRows);
      }
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

  @Override
  public QueryResult next(String cursor, boolean allowPartial, Access access) {
    Cursor next;
    try {
      next = Cursor.decode(cursor);
    } catch (IllegalArgumentException e) {
      throw QueryException.invalid(e.getMessage());
    }
    return execute(next.sql(), next.params(), next.timeZone(), next.after(), allowPartial, access);
  }

  @Override
  public QueryResult execute(String sql, List<Object> params, ZoneId timeZone, boolean allowPartial, Access access) {
    return execute(sql, params, timeZone, null, allowPartial, access);
  }

  /** {@code after}: the page after that position in the statement's total order (a cursor's); null for the first. */
  private QueryResult execute(String sql, List<Object> params, ZoneId timeZone, List<Object> after,
      boolean allowPartial, Access access) {
    try {
      return run(sql, params, timeZone, after, allowPartial, access);
    } catch (StackOverflowError e) {
      // Nesting without parentheses (a chain of thousands of ORs or NOTs) still recurses that deep.
      throw QueryException.invalid("the statement's expressions nest too deeply to plan; split it");
    }
  }

  private QueryResult run(String sql, List<Object> params, ZoneId timeZone, List<Object> after,
      boolean allowPartial, Access access) {
    long started = System.nanoTime();
    try (MemoryBudget.Reservation reserved = memory.open()) {
      Request request = new Request(optimizer, access, allowPartial, StatementParser.isExplain(sql), reserved,
          timeZone);
      Statement asked = StatementParser.parse(sql, params, request::subquery);
      if (asked instanceof UnionStatement union) {
        if (after != null) {
          throw QueryException.invalid("\"cursor\": a UNION's answer has no next page");
        }
        List<List<Object>> rows = request.rows(union);
        if (rows.size() > maxResultRows) {
          throw QueryExecution.tooManyRows(rows.size(), maxResultRows);
        }
        return request.result(union, rows, started, null);
      }
      SelectStatement select = (SelectStatement) asked;
      SelectStatement statement = select;
      if (after != null) {
        try {
          statement = Keyset.after(select, after);
        } catch (IllegalArgumentException e) {
          throw QueryException.invalid("\"cursor\": " + e.getMessage());
        }
      }
      // A page that can continue answers with the cursor of the next: the statement as asked (its tenant restriction
      // is applied again to each page) and the position of its last row.
      Function<List<Object>, String> cursorAt = Keyset.pageable(select)
          ? position -> new Cursor(sql, params, timeZone, position).encode() : position -> null;
      return request.result(statement, request.rows(statement), started, cursorAt);
    }
  }

  /** Whose share of the query slots a query takes: its tenant key's, or the one tenant it names. */
  private static String party(Access access, io.evenkeel.query.normalize.Predicate where) {
    if (!access.isAdmin()) {
      return "of key " + access.keyId();
    }
    Set<Long> tenants = ShardRouter.tenantsNamed(where);
    return tenants != null && tenants.size() == 1 ? "of tenant " + tenants.iterator().next()
        : TenantSlots.SEVERAL_TENANTS;
  }

  /**
   * One request's SELECTs: the statement's own, its subqueries' and a union's parts. Each is restricted to the key's
   * tenants and takes a query slot while it runs; they share the request's deadline and memory reservation, and the
   * answer counts the shards and failures of all of them.
   */
  private final class Request {
    private final Optimizer optimizer;
    private final Access access;
    private final boolean allowPartial;
    /** EXPLAIN: the statement is only planned (its subqueries run: its plan depends on their values). */
    private final boolean explain;
    private final MemoryBudget.Reservation memory;
    /**
     * The one deadline of every shard call the request makes, from its first: parsing and planning (a first query
     * loads the parser's classes) do not count against the shards' time.
     */
    private Deadline shardDeadline;
    private final ZoneId timeZone;
    private final List<ShardFailure> failures = new ArrayList<>();
    /** For EXPLAIN, the lines of the SELECTs planned so far, in order. */
    private final List<String> plans = new ArrayList<>();
    /** Running a subquery: its SELECTs run even for EXPLAIN. */
    private boolean inSubquery;
    private int subqueries;
    private int shards;
    private long shardSearchMicros;
    private List<Object> lastPosition;

    Request(Optimizer optimizer, Access access, boolean allowPartial, boolean explain,
        MemoryBudget.Reservation memory, ZoneId timeZone) {
      this.optimizer = optimizer;
      this.access = access;
      this.allowPartial = allowPartial;
      this.explain = explain;
      this.memory = memory;
      this.timeZone = timeZone;
    }

    /** A subquery's rows, run while the statement is parsed. */
    List<List<Object>> subquery(Statement inner) {
      int number = ++subqueries;
      int first = plans.size();
      boolean outer = inSubquery;
      inSubquery = true;
      List<List<Object>> rows;
      try {
        rows = rows(inner);
      } finally {
        inSubquery = outer;
      }
      if (explain) {
        for (int i = first; i < plans.size(); i++) {
          plans.set(i, "  " + plans.get(i));
        }
        plans.add(first, "subquery " + number + " (run first: " + rows.size() + " rows):");
      }
      if (!failures.isEmpty()) {
        // The statement would be answered from part of a subquery's values: not a partial answer but a wrong one.
        throw QueryException.shardsFailed(shards, failures);
      }
      return rows;
    }

    /** The rows of a UNION: each side's, combined, then ordered and paged. */
    List<List<Object>> rows(UnionStatement union) {
      List<List<Object>> left = rows(limitedToPage(union.left(), union));
      if (explain) {
        plans.add(union.all() ? "UNION ALL" : "UNION (one row of each distinct row)");
      }
      List<List<Object>> right = rows(limitedToPage(union.right(), union));
      if (explain) {
        plans.add("then in the service: combine" + (union.orderBy().isEmpty() ? "" : ", ORDER BY " + union.orderBy()
            .stream().map(key -> union.labels().get(key.column()) + (key.descending() ? " DESC" : ""))
            .collect(Collectors.joining(", "))) + (union.limit() == null ? "" : ", LIMIT " + union.limit())
            + (union.offset() == 0 ? "" : " OFFSET " + union.offset()));
      }
      return UnionRows.page(UnionRows.combine(left, right, union.all(), UnionRows.kinds(union)), union);
    }

    private List<List<Object>> rows(Statement statement) {
      return statement instanceof UnionStatement union ? rows(union) : rows((SelectStatement) statement);
    }

    /** The rows of one SELECT from its shards (none for EXPLAIN, which only plans it). */
    List<List<Object>> rows(SelectStatement statement) {
      if (!access.isAdmin()) {
        statement = TenantRestriction.apply(statement, ShardRouter.tenantsNamed(optimizer.where(statement)), access);
      }
      String party = party(access, optimizer.where(statement));
      attributeFrequency.record(statement, party);
      QueryPlan plan = optimizer.plan(statement);
      Route route = router.route(plan.where());
      if (explain) {
        plans.addAll(PlanPrinter.lines(plan, route.reason(), route.size()));
        if (!inSubquery) {
          return List.of();
        }
      }
      if (shardDeadline == null) {
        shardDeadline = Deadline.after(deadline.toMillis(), TimeUnit.MILLISECONDS);
      }
      try (TenantSlots.Slot slot = tenantSlots.acquire(party)) {
        QueryExecution execution = new QueryExecution(clients, plan, route, party, allowPartial, shardDeadline,
            memory, maxResultRows, timeZone);
        List<List<Object>> rows = execution.run();
        shards += route.size();
        failures.addAll(execution.failures());
        shardSearchMicros += execution.shardSearchMicros();
        lastPosition = execution.lastPosition();
        return rows;
      }
    }

    QueryResult result(Statement statement, List<List<Object>> rows, long started,
        Function<List<Object>, String> cursorAt) {
      if (statement.explain()) {
        List<List<Object>> lines = new ArrayList<>();
        plans.forEach(line -> lines.add(List.of(line)));
        return new QueryResult(List.of("plan"), lines, elapsedMs(started), 0, List.of(), 0, staleRules.get(), null);
      }
      // A partial page has no cursor: the failed shards' rows before its last row would never be seen.
      String cursor = cursorAt == null || lastPosition == null || !failures.isEmpty() ? null
          : cursorAt.apply(lastPosition);
      return new QueryResult(statement.labels(), rows, elapsedMs(started), shards, failures, shardSearchMicros,
          staleRules.get(), cursor);
    }
  }

  /**
   * A side of a UNION ALL asked for only the rows its page can take: the union's ORDER BY on the side's own columns,
   * and its OFFSET + LIMIT, unless the side has a LIMIT of its own. (A UNION that removes duplicates needs all of
   * each side's rows, and so does a side whose numbers the union compares as text.)
   */
  private static Statement limitedToPage(Statement side, UnionStatement union) {
    Long end = union.end();
    if (!union.all() || end == null || !UnionRows.ordersAlike(side, union)) {
      return side;
    }
    if (side instanceof SelectStatement select && select.limit() == null) {
      List<OrderItem> orderBy = new ArrayList<>();
      union.orderBy().forEach(key -> orderBy.add(new OrderItem(select.items().get(key.column()).expr(),
          key.descending())));
      return new SelectStatement(select.items(), select.distinct(), select.where(), select.groupBy(),
          select.having(), orderBy, end, select.offset(), false);
    }
    if (side instanceof UnionStatement inner && inner.limit() == null) {
      return new UnionStatement(inner.left(), inner.right(), inner.all(), union.orderBy(), end, inner.offset(),
          false);
    }
    return side;
  }

  @Override
  public AutoCloseable holdAnswer(QueryResult result) {
    long bytes = 64L * result.columns().size();
    for (List<Object> row : result.rows()) {
      bytes += 48;
      for (Object value : row) {
        bytes += value instanceof String text ? 48 + 2L * text.length() : 32;
      }
    }
    MemoryBudget.Reservation held = memory.open();
    try {
      // Described only when refused: formatting it for every answer was a tenth of a small query's request thread.
      held.reserve(bytes, () -> String.format("an answer of %,d rows being written", result.rows().size()));
    } catch (MemoryBudget.Exceeded e) {
      held.close();
      throw QueryException.overloaded(e.getMessage() + "; retry shortly");
    }
    return held;
  }

  @Override
  public int refresh() {
    int[] shards = router.allShards();
    ShardClients.FanOut<?> refreshed = clients.refresh(shards,
        Deadline.after(deadline.toMillis(), TimeUnit.MILLISECONDS));
    if (!refreshed.failures().isEmpty()) {
      throw QueryException.shardsFailed(shards.length, refreshed.failures());
    }
    return shards.length;
  }

  @Override
  public AttributeFrequency attributeFrequency() {
    return attributeFrequency;
  }

  @Override
  public Set<String> hotAttributes() {
    return optimizer.settings().hotAttributes();
  }

  /**
   * Pushes filters on {@code keys} to the shards' index from the next query on (the cluster's list changed). A shard
   * that has not indexed a key for some rows yet scans their stored attributes, so the answer is the same either way.
   */
  public synchronized void hotAttributes(Set<String> keys) {
    optimizer = new Optimizer(optimizer.settings().withHotAttributes(keys));
  }

  public OptimizerSettings optimizerSettings() {
    return optimizer.settings();
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  @Override
  public void close() {
    clients.close();
  }
}
