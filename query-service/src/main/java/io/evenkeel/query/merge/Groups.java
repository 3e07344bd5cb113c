package io.evenkeel.query.merge;

import io.evenkeel.expr.AggregateAccumulator;
import io.evenkeel.expr.Env;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.TableRow;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.shard.Bucket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The groups of a grouped query, built from rows or from the shards' buckets, then HAVING, ORDER BY, OFFSET/LIMIT
 * and the select expressions, all evaluated in the service after the merge. Without ORDER BY, groups come in
 * ascending key order (NULL first), as MariaDB returns them.
 */
public final class Groups {
  /** Groups a query may make: each is held in the service until the end of the merge. */
  public static final int MAX_GROUPS = 100_000;
  /** The most distinct values one COUNT(DISTINCT ...) counts in one group. */
  public static final int MAX_DISTINCT_VALUES = 1_000_000;

  private final SelectStatement statement;
  private final List<Expr.Aggregate> aggregates;
  private final Evaluator evaluator;
  /** By normalized key; each group keeps its key as first seen, for output (12.30 stays 12.30). */
  private final Map<List<Object>, Group> groups = new LinkedHashMap<>();

  private record Group(List<Object> key, AggregateAccumulator[] accumulators) {}

  public Groups(SelectStatement statement, List<Expr.Aggregate> aggregates, Evaluator evaluator) {
    this.statement = statement;
    this.aggregates = aggregates;
    this.evaluator = evaluator;
  }

  /** A row that passed the WHERE clause. */
  public void add(TableRow row) {
    List<Object> key = new ArrayList<>(statement.groupBy().size());
    for (Expr expr : statement.groupBy()) {
      key.add(evaluator.eval(expr, row));
    }
    AggregateAccumulator[] accumulators = group(key);
    for (int i = 0; i < accumulators.length; i++) {
      Expr arg = aggregates.get(i).arg();
      accumulators[i].add(arg == null ? Boolean.TRUE : evaluator.eval(arg, row));
    }
  }

  /** One shard's bucket: its key values follow the GROUP BY, its values the aggregates, in order. */
  public void add(Bucket bucket) {
    List<Object> key = new ArrayList<>(bucket.getKeyCount());
    bucket.getKeyList().forEach(value -> key.add(SqlValueCodec.decode(value)));
    AggregateAccumulator[] accumulators = group(key);
    for (int i = 0; i < accumulators.length; i++) {
      accumulators[i].merge(bucket.getValues(i));
    }
  }

  private AggregateAccumulator[] group(List<Object> key) {
    List<Object> normalized = normalize(key);
    if (groups.size() >= MAX_GROUPS && !groups.containsKey(normalized)) {
      throw QueryException.invalid("the query makes more than " + MAX_GROUPS + " groups; at most " + MAX_GROUPS
          + " (narrow the WHERE or group by fewer columns)");
    }
    return groups.computeIfAbsent(normalized, k -> {
      AggregateAccumulator[] accumulators = new AggregateAccumulator[aggregates.size()];
      for (int i = 0; i < accumulators.length; i++) {
        accumulators[i] = new AggregateAccumulator(aggregates.get(i), MAX_DISTINCT_VALUES);
      }
      return new Group(key, accumulators);
    }).accumulators();
  }

  /** Group keys compare by value: 1.50 and 1.5 are one group. */
  private static List<Object> normalize(List<Object> key) {
    List<Object> normalized = new ArrayList<>(key.size());
    for (Object value : key) {
      Object shown = SqlValues.shown(value); // a quotient groups by the value it shows, as in MySQL
      normalized.add(shown instanceof java.math.BigDecimal decimal && decimal.scale() > 0
          ? decimal.stripTrailingZeros() : shown);
    }
    return normalized;
  }

  /** The output rows. */
  public List<List<Object>> rows() {
    if (groups.isEmpty() && statement.groupBy().isEmpty()) {
      group(List.of()); // an aggregate without GROUP BY over no rows still gives one row
    }
    record Output(List<Object> key, List<Object> sortKeys, List<Object> row) {}
    List<Output> outputs = new ArrayList<>();
    for (Group group : groups.values()) {
      Map<Expr, Object> known = new HashMap<>();
      for (int i = 0; i < statement.groupBy().size(); i++) {
        known.put(statement.groupBy().get(i), group.key().get(i));
      }
      for (int i = 0; i < aggregates.size(); i++) {
        known.put(aggregates.get(i), group.accumulators()[i].result());
      }
      if (statement.having() != null && !evaluator.isTrue(substitute(statement.having(), known), NO_ROW)) {
        continue;
      }
      List<Object> sortKeys = new ArrayList<>();
      for (OrderItem item : statement.orderBy()) {
        sortKeys.add(evaluator.eval(substitute(item.expr(), known), NO_ROW));
      }
      List<Object> row = new ArrayList<>();
      for (SelectItem item : statement.items()) {
        row.add(SqlValues.output(evaluator.eval(substitute(item.expr(), known), NO_ROW)));
      }
      outputs.add(new Output(group.key(), sortKeys, row));
    }
    boolean[] descending = new boolean[statement.orderBy().size()];
    for (int i = 0; i < descending.length; i++) {
      descending[i] = statement.orderBy().get(i).descending();
    }
    outputs.sort((a, b) -> {
      int sign = ValueOrder.compareKeys(a.sortKeys(), b.sortKeys(), descending);
      return sign != 0 ? sign : ValueOrder.compareKeys(a.key(), b.key(), null);
    });
    List<List<Object>> rows = new ArrayList<>();
    for (Output output : Page.slice(outputs, statement.offset(), statement.limit())) {
      rows.add(output.row());
    }
    return rows;
  }

  /** Replaces GROUP BY keys and aggregates with their values for this group. */
  private static Expr substitute(Expr expr, Map<Expr, Object> known) {
    if (known.containsKey(expr)) {
      return new Expr.Literal(known.get(expr));
    }
    if (expr instanceof Expr.Call call) {
      List<Expr> args = new ArrayList<>(call.args().size());
      call.args().forEach(arg -> args.add(substitute(arg, known)));
      return new Expr.Call(call.op(), args);
    }
    return expr;
  }

  /** After substitution a grouped expression reads no row (GroupingCheck guarantees it). */
  private static final Env NO_ROW = new Env() {
    @Override
    public Object column(String name) {
      throw new IllegalStateException("column " + name + " read outside a row in a grouped query");
    }

    @Override
    public Object attr(String key) {
      throw new IllegalStateException("attr('" + key + "') read outside a row in a grouped query");
    }
  };
}
