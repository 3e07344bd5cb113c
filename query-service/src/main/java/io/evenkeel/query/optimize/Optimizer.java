package io.evenkeel.query.optimize;

import io.evenkeel.expr.AggregateFunction;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.query.normalize.Normalizer;
import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.query.normalize.PredicateBuilder;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Plans a statement: normalizes its WHERE, lets the access rules choose index paths, and decides what the shards
 * compute (top hits, rows, or partial aggregates) and what the service does after merging.
 */
public final class Optimizer {
  /** The most hits one shard request returns (the shard servers' limit). */
  public static final int MAX_HITS_PER_SHARD = 100_000;

  private final OptimizerSettings settings;
  private final Normalizer normalizer = new Normalizer(OptimizerRules.NORMALIZATION);

  public Optimizer(OptimizerSettings settings) {
    this.settings = settings;
  }

  public OptimizerSettings settings() {
    return settings;
  }

  /** The statement's WHERE clause, normalized: what the plan and the route are made from. */
  public Predicate where(SelectStatement statement) {
    return normalizer.normalize(PredicateBuilder.build(statement.where()));
  }

  public QueryPlan plan(SelectStatement statement) {
    Predicate where = where(statement);
    AccessPlan access = access(where);
    boolean serviceFilter = containsServiceScan(access, settings.conditionsOnShards());
    Filter filter = FilterCompiler.compile(access, settings.conditionsOnShards());
    List<Expr.Aggregate> aggregates = aggregates(statement);
    if (statement.isAggregate()) {
      boolean expressions = settings.conditionsOnShards();
      List<Aggregation> shardAggregations = shardAggregations(aggregates, expressions);
      List<Expr> groupBy = shardGroupBy(statement.groupBy(), expressions);
      boolean onShards = !serviceFilter && shardAggregations != null && groupBy != null;
      return new QueryPlan(statement, where, access, filter, serviceFilter,
          onShards ? QueryPlan.Mode.AGGREGATE_ON_SHARDS : QueryPlan.Mode.AGGREGATE_ROWS, List.of(), 0, false,
          List.of(), aggregates,
          onShards ? shardAggregations : List.of(), onShards ? groupBy : List.of(), settings.conditionsOnShards());
    }
    List<SortField> sort = shardSort(statement.orderBy(), settings.conditionsOnShards());
    boolean twoPhase = !serviceFilter && sort != null && statement.limit() != null;
    int hits = 0;
    if (twoPhase) {
      // Deeper pages are answered when no shard has more matches than this (QueryExecution checks).
      hits = (int) Math.min(statement.end(), MAX_HITS_PER_SHARD);
    }
    return new QueryPlan(statement, where, access, filter, serviceFilter,
        twoPhase ? QueryPlan.Mode.TWO_PHASE : QueryPlan.Mode.ROWS, twoPhase ? sort : List.of(), hits,
        twoPhase && !sort.isEmpty() && orderedByComposite(access, sort.get(0)),
        twoPhase ? coveredColumns(statement) : List.of(), List.of(), List.of(), List.of(),
        settings.conditionsOnShards());
  }

  /**
   * The columns the select list reads, in table order, when all of them have doc values (a covered projection: the
   * shards can return them with the hits); empty when some item needs the stored row (title, attributes).
   */
  private static List<String> coveredColumns(SelectStatement statement) {
    Set<String> names = new HashSet<>();
    for (SelectItem item : statement.items()) {
      if (!readsOnlyDocValues(item.expr(), names)) {
        return List.of();
      }
    }
    return TransactionLogsTable.COLUMNS.stream().map(Column::name).filter(names::contains).toList();
  }

  private static boolean readsOnlyDocValues(Expr expr, Set<String> names) {
    if (expr instanceof Expr.Literal) {
      return true;
    }
    if (expr instanceof Expr.Column column) {
      names.add(column.name());
      return TransactionLogsTable.require(column.name()).hasDocValues();
    }
    if (expr instanceof Expr.Call call) {
      return call.args().stream().allMatch(arg -> readsOnlyDocValues(arg, names));
    }
    return false;
  }

  /**
   * Whether a composite range leads the access plan (alone, or as a part of its conjunction) with every column but
   * its last fixed, and its last column is the first sort key: then the range's index order is the sort's order.
   */
  private static boolean orderedByComposite(AccessPlan access, SortField first) {
    List<AccessPlan> parts = access instanceof AccessPlan.Conjunction conjunction ? conjunction.parts()
        : List.of(access);
    List<AccessPlan.CompositeRange> ranges = parts.stream().filter(AccessPlan.CompositeRange.class::isInstance)
        .map(AccessPlan.CompositeRange.class::cast).toList();
    if (ranges.size() != 1) {
      return false;
    }
    AccessPlan.CompositeRange range = ranges.get(0);
    int last = range.columns().size() - 1;
    return range.lower().subList(0, last).equals(range.upper().subList(0, last))
        && range.columns().get(last).equals(first.getField());
  }

  AccessPlan access(Predicate predicate) {
    if (predicate instanceof Predicate.Constant constant) {
      return new AccessPlan.Constant(constant.value());
    }
    List<Predicate> conjuncts = predicate instanceof Predicate.And and ? and.children() : List.of(predicate);
    ConjunctGroup group = new ConjunctGroup(conjuncts, settings, this::access);
    for (AccessRule rule : settings.rules()) {
      rule.apply(group);
    }
    return group.result();
  }

  /** Whether the plan has a service scan whose condition the shards cannot test: the service then must. */
  private static boolean containsServiceScan(AccessPlan plan, boolean conditionsOnShards) {
    if (plan instanceof AccessPlan.ServiceScan scan) {
      return !FilterCompiler.onShards(scan, conditionsOnShards);
    }
    if (plan instanceof AccessPlan.Conjunction conjunction) {
      return conjunction.parts().stream().anyMatch(part -> containsServiceScan(part, conditionsOnShards));
    }
    if (plan instanceof AccessPlan.Union union) {
      return union.branches().stream().anyMatch(branch -> containsServiceScan(branch, conditionsOnShards));
    }
    return false;
  }

  private static List<Expr.Aggregate> aggregates(SelectStatement statement) {
    List<Expr.Aggregate> found = new ArrayList<>();
    for (SelectItem item : statement.items()) {
      collect(item.expr(), found);
    }
    if (statement.having() != null) {
      collect(statement.having(), found);
    }
    for (OrderItem item : statement.orderBy()) {
      collect(item.expr(), found);
    }
    return found;
  }

  private static void collect(Expr expr, List<Expr.Aggregate> found) {
    if (expr instanceof Expr.Aggregate aggregate) {
      if (!found.contains(aggregate)) {
        found.add(aggregate);
      }
    } else if (expr instanceof Expr.Call call) {
      call.args().forEach(arg -> collect(arg, found));
    }
  }

  /**
   * The shard aggregations, or null when one of them needs what the shards cannot compute: a plain column is read
   * from doc values; any other argument is sent as an expression when {@code expressions} allows and it has a wire
   * form.
   */
  private static List<Aggregation> shardAggregations(List<Expr.Aggregate> aggregates, boolean expressions) {
    List<Aggregation> result = new ArrayList<>();
    for (Expr.Aggregate aggregate : aggregates) {
      if (aggregate.arg() == null) {
        result.add(Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT).build());
        continue;
      }
      Aggregation.Function function = aggregate.distinct() ? Aggregation.Function.DISTINCT_VALUES
          : switch (aggregate.function()) {
            case COUNT -> Aggregation.Function.COUNT;
            case SUM -> Aggregation.Function.SUM;
            case AVG -> Aggregation.Function.AVG;
            case MIN -> Aggregation.Function.MIN;
            case MAX -> Aggregation.Function.MAX;
          };
      Column column = docValuesColumn(aggregate.arg());
      boolean summed = aggregate.function() == AggregateFunction.SUM || aggregate.function() == AggregateFunction.AVG;
      if (column != null && (column.isNumeric() || !summed)) {
        result.add(Aggregation.newBuilder().setFunction(function).setField(column.name()).build());
      } else if (expressions && ExpressionCodec.encodable(aggregate.arg())) {
        result.add(Aggregation.newBuilder().setFunction(function)
            .setExpression(ExpressionCodec.encode(aggregate.arg())).build());
      } else {
        return null;
      }
    }
    return result;
  }

  /**
   * The shards' group keys, or null when one of them is neither a column with doc values nor (when {@code
   * expressions} allows) an expression with a wire form.
   */
  private static List<Expr> shardGroupBy(List<Expr> groupBy, boolean expressions) {
    for (Expr key : groupBy) {
      if (docValuesColumn(key) == null && !(expressions && ExpressionCodec.encodable(key))) {
        return null;
      }
    }
    return groupBy;
  }

  /**
   * The shards' sort for an ORDER BY of sortable columns and (with {@code expressions}) of expressions they evaluate,
   * or null when the service must sort.
   */
  private static List<SortField> shardSort(List<OrderItem> orderBy, boolean expressions) {
    List<SortField> sort = new ArrayList<>();
    for (OrderItem item : orderBy) {
      SortField.Builder field = SortField.newBuilder().setDescending(item.descending());
      Column column = docValuesColumn(item.expr());
      if (column != null) {
        field.setField(column.name());
      } else if (expressions && ExpressionCodec.encodable(item.expr())) {
        field.setExpression(ExpressionCodec.encode(item.expr()));
      } else {
        return null;
      }
      sort.add(field.build());
    }
    return sort;
  }

  private static Column docValuesColumn(Expr expr) {
    if (expr instanceof Expr.Column column) {
      Column table = TransactionLogsTable.require(column.name());
      return table.hasDocValues() ? table : null;
    }
    return null;
  }
}
