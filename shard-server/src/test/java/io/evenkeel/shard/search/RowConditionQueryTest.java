package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.ExpressionException;
import io.evenkeel.expr.Op;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WHERE clause no index answers, sent to the shard as a row condition: the shard tests it on each candidate's
 * stored row with SQL's semantics (NULL rejects), in the query's session time zone, alone or under the index's
 * clauses, and refuses a condition that would build more text than the query may.
 */
class RowConditionQueryTest {
  @TempDir Path dir;

  @Test
  void theShardTestsTheConditionOnItsRowsAsSqlWould() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(5);
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      // Created over 40 days, so that the hour of the day differs from row to row.
      rows.add(TransactionLogChange.newBuilder(TestRows.random(random, 1 + i % 3, i))
          .setCreatedTime(random.nextLong(40L * 24 * 3_600_000)).build());
    }
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      ShardWriteBatch batch = TestRows.batch(0, 0, rows, false);
      shard.write(batch, TestRows.BATCHES.encode(batch));
      shard.refresh();

      Expr revenue = Expr.Call.of(Op.GT, Expr.Call.of(Op.TIMES, new Expr.Column("price"),
          new Expr.Column("quantity")), new Expr.Literal(2_000L));
      assertThat(rowIds(shard, condition(revenue), "")).isEqualTo(expected(rows, row -> row.getPrice() != null
          && row.getQuantity() != null && row.getPrice().multiply(BigDecimal.valueOf(row.getQuantity()))
          .compareTo(BigDecimal.valueOf(2_000)) > 0));

      Expr hour = Expr.Call.of(Op.LT, Expr.Call.of(Op.DATE_PART, new Expr.Literal("HOUR"), Expr.Call.of(
          Op.FROM_UNIXTIME, Expr.Call.of(Op.DIVIDE, new Expr.Column("created_time"), new Expr.Literal(1_000L)))),
          new Expr.Literal(6L));
      for (String zone : List.of("", "+08:00", "-05:00")) {
        ZoneOffset offset = zone.isEmpty() ? ZoneOffset.UTC : ZoneOffset.of(zone);
        assertThat(rowIds(shard, condition(hour), zone)).as("hour < 6 in %s", zone).isEqualTo(expected(rows,
            row -> Instant.ofEpochMilli(row.getCreatedTime()).atOffset(offset).getHour() < 6));
      }

      // Under an indexed clause, which leads: tenant 2's rows only.
      Filter tenantTwo = Filter.newBuilder().setBool(Bool.newBuilder()
          .addMust(Filter.newBuilder().setTerm(Term.newBuilder().setField("tenant_id")
              .setValue(Value.newBuilder().setLongValue(2))))
          .addMust(condition(Expr.Call.of(Op.NOT, revenue)))).build();
      assertThat(rowIds(shard, tenantTwo, "")).isEqualTo(expected(rows, row -> row.getTenantId() == 2
          && row.getPrice() != null && row.getQuantity() != null
          && row.getPrice().multiply(BigDecimal.valueOf(row.getQuantity())).compareTo(BigDecimal.valueOf(2_000)) <= 0));

      Expr padded = Expr.Call.of(Op.EQ, Expr.Call.of(Op.LPAD, new Expr.Column("title"), new Expr.Literal(10_000L),
          new Expr.Literal("x")), new Expr.Literal("y"));
      Query building = Query.newBuilder().setLimit(1_000).setFilter(condition(padded)).setMaxBuiltTextChars(100_000)
          .build();
      assertThatThrownBy(() -> search(shard, building)).isInstanceOf(ExpressionException.class)
          .hasMessageContaining("text built by LPAD passes the query's 100000 characters");
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static Filter condition(Expr condition) {
    return Filter.newBuilder().setRowCondition(ExpressionCodec.encode(condition)).build();
  }

  private static Set<Long> expected(List<TransactionLogChange> rows, Predicate<TransactionLogChange> holds) {
    Set<Long> ids = new TreeSet<>();
    rows.stream().filter(holds).forEach(row -> ids.add(row.getRowId()));
    return ids;
  }

  private static Set<Long> rowIds(Shard shard, Filter filter, String timeZone) throws IOException {
    Set<Long> ids = new TreeSet<>();
    search(shard, Query.newBuilder().setLimit(1_000).setFilter(filter).setTimeZone(timeZone).build()).getHitsList()
        .forEach(hit -> ids.add(hit.getRowId()));
    return ids;
  }

  private static io.evenkeel.schemas.shard.SearchResponse search(Shard shard, Query query) throws IOException {
    return ShardQueries.search(shard, query);
  }
}
