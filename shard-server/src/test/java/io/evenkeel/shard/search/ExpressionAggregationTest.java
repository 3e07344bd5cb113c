package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.expr.AggregateAccumulator;
import io.evenkeel.expr.AggregateFunction;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.Op;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GROUP BY and aggregates of expressions computed on the shard: each bucket equals what the service computes from
 * the same rows with its own evaluator and accumulators, whether the expressions read doc values or the stored row,
 * in the query's time zone; the group cap holds for expression keys too.
 */
class ExpressionAggregationTest {
  @TempDir Path dir;

  private static final Expr CREATED = Expr.Call.of(Op.FROM_UNIXTIME,
      Expr.Call.of(Op.DIVIDE, new Expr.Column("created_time"), new Expr.Literal(1_000L)));
  private static final Expr DAY = Expr.Call.of(Op.DATE, CREATED);
  private static final Expr REVENUE = Expr.Call.of(Op.TIMES, new Expr.Column("price"), new Expr.Column("quantity"));

  @Test
  void bucketsOfExpressionsEqualTheServicesAggregationOfTheSameRows() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(11);
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      rows.add(TransactionLogChange.newBuilder(TestRows.random(random, 1 + i % 4, i))
          .setCreatedTime(random.nextLong(20L * 24 * 3_600_000)).build());
    }
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      ShardWriteBatch batch = TestRows.batch(0, 0, rows, false);
      shard.write(batch, TestRows.BATCHES.encode(batch));
      shard.refresh();

      List<Expr.Aggregate> aggregates = List.of(
          new Expr.Aggregate(AggregateFunction.COUNT, false, null),
          new Expr.Aggregate(AggregateFunction.SUM, false, REVENUE),
          new Expr.Aggregate(AggregateFunction.AVG, false, Expr.Call.of(Op.MOD, new Expr.Column("quantity"),
              new Expr.Literal(7L))),
          new Expr.Aggregate(AggregateFunction.COUNT, true, Expr.Call.of(Op.LOWER, new Expr.Column("status"))),
          new Expr.Aggregate(AggregateFunction.MIN, false, CREATED),
          new Expr.Aggregate(AggregateFunction.SUM, false, Expr.Call.of(Op.GT, new Expr.Column("price"),
              new Expr.Literal(50L))));
      // From doc values, in three time zones: the day a row falls on depends on it.
      assertThat(serviceGroups(rows, List.of(DAY), aggregates, "+08:00"))
          .isNotEqualTo(serviceGroups(rows, List.of(DAY), aggregates, "")).hasSizeGreaterThan(10);
      for (String zone : List.of("", "+08:00", "-05:00")) {
        assertThat(shardGroups(shard, List.of(DAY), aggregates, zone)).as("by day in '%s'", zone)
            .isEqualTo(serviceGroups(rows, List.of(DAY), aggregates, zone));
      }
      // Keys read as codes from doc values, several together, some NULL: a number, the day, a DECIMAL, a keyword.
      List<List<Expr>> codedKeys = List.of(List.of(new Expr.Column("status"), DAY), List.of(new Expr.Column("group_id"),
          new Expr.Column("price"), new Expr.Column("seller_nick")), List.of(new Expr.Column("seller_nick")));
      for (List<Expr> keys : codedKeys) {
        assertThat(shardGroups(shard, keys, aggregates, "+08:00")).as("by %s", keys)
            .isEqualTo(serviceGroups(rows, keys, aggregates, "+08:00"));
      }
      // A zone with summer time: its days are not arithmetic on the milliseconds, and are evaluated on each row.
      assertThat(shardGroups(shard, List.of(new Expr.Column("status"), DAY), aggregates, "Europe/Berlin"))
          .isEqualTo(serviceGroups(rows, List.of(new Expr.Column("status"), DAY), aggregates, "Europe/Berlin"));
      // Reading the stored row (title has no doc values), keyed by a truth value and a column.
      List<Expr> keys = List.of(Expr.Call.of(Op.GT, Expr.Call.of(Op.CHAR_LENGTH, new Expr.Column("title")),
          new Expr.Literal(12L)), new Expr.Column("tenant_id"));
      List<Expr.Aggregate> fromTitles = List.of(
          new Expr.Aggregate(AggregateFunction.MAX, false, Expr.Call.of(Op.UPPER, new Expr.Column("title"))),
          new Expr.Aggregate(AggregateFunction.COUNT, false, REVENUE));
      assertThat(shardGroups(shard, keys, fromTitles, "")).isEqualTo(serviceGroups(rows, keys, fromTitles, ""));

      Query tooMany = query(List.of(new Expr.Column("row_id")), aggregates, "").toBuilder().setMaxGroups(100).build();
      assertThatThrownBy(() -> search(shard, tooMany)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("more than 100 groups on this shard");
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static Query query(List<Expr> keys, List<Expr.Aggregate> aggregates, String zone) {
    Query.Builder query = Query.newBuilder().setTimeZone(zone);
    keys.forEach(key -> query.addGroupByExpressions(ExpressionCodec.encode(key)));
    for (Expr.Aggregate aggregate : aggregates) {
      Aggregation.Builder aggregation = Aggregation.newBuilder().setFunction(aggregate.distinct()
          ? Aggregation.Function.DISTINCT_VALUES : Aggregation.Function.valueOf(aggregate.function().name()));
      if (aggregate.arg() != null) {
        aggregation.setExpression(ExpressionCodec.encode(aggregate.arg()));
      }
      query.addAggregations(aggregation);
    }
    return query.build();
  }

  /** Group key to the aggregates' results, from the shard's buckets. */
  private static Map<List<Object>, List<Object>> shardGroups(Shard shard, List<Expr> keys,
      List<Expr.Aggregate> aggregates, String zone) throws IOException {
    Map<List<Object>, List<Object>> groups = new HashMap<>();
    for (Bucket bucket : search(shard, query(keys, aggregates, zone)).getBucketsList()) {
      List<Object> key = new ArrayList<>();
      bucket.getKeyList().forEach(value -> key.add(SqlValueCodec.decode(value)));
      List<Object> results = new ArrayList<>();
      for (int i = 0; i < aggregates.size(); i++) {
        AggregateAccumulator accumulator = new AggregateAccumulator(aggregates.get(i), Integer.MAX_VALUE);
        accumulator.merge(bucket.getValues(i));
        results.add(accumulator.result());
      }
      assertThat(groups.put(key, results)).as("one bucket per key").isNull();
    }
    return groups;
  }

  /** The same, as the service computes it from the rows. */
  private static Map<List<Object>, List<Object>> serviceGroups(List<TransactionLogChange> rows, List<Expr> keys,
      List<Expr.Aggregate> aggregates, String zone) {
    Evaluator evaluator = new Evaluator((chars, function) -> { },
        zone.isEmpty() ? SessionTimeZone.DEFAULT : SessionTimeZone.parse(zone));
    Map<List<Object>, List<AggregateAccumulator>> groups = new HashMap<>();
    for (TransactionLogChange change : rows) {
      TableRow row = TableRow.of(change);
      List<Object> key = new ArrayList<>();
      keys.forEach(expr -> key.add(evaluator.eval(expr, row)));
      List<AggregateAccumulator> accumulators = groups.computeIfAbsent(key, k -> aggregates.stream()
          .map(aggregate -> new AggregateAccumulator(aggregate, Integer.MAX_VALUE)).toList());
      for (int i = 0; i < aggregates.size(); i++) {
        Expr arg = aggregates.get(i).arg();
        accumulators.get(i).add(arg == null ? Boolean.TRUE : evaluator.eval(arg, row));
      }
    }
    Map<List<Object>, List<Object>> results = new HashMap<>();
    groups.forEach((key, accumulators) -> results.put(key,
        accumulators.stream().map(AggregateAccumulator::result).toList()));
    return results;
  }

  private static io.evenkeel.schemas.shard.SearchResponse search(Shard shard, Query query) throws IOException {
    return ShardQueries.search(shard, query);
  }
}
