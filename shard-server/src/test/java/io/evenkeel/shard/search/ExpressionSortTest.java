package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.Op;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ORDER BY keys that are expressions, sorted on the shard: its top hits and their sort values are those of sorting
 * the same rows with the service's evaluator (NULL lowest, then by value, then tenant_id and row_id), over several
 * segments, from doc values and from stored rows, beside column keys, in a session time zone.
 */
class ExpressionSortTest {
  @TempDir Path dir;

  private record Key(Expr expr, boolean descending) {}

  private static final Expr CREATED = Expr.Call.of(Op.FROM_UNIXTIME,
      Expr.Call.of(Op.DIVIDE, new Expr.Column("created_time"), new Expr.Literal(1_000L)));

  @Test
  void topHitsByExpressionsAreThoseOfSortingTheRows() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(5);
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      rows.add(TransactionLogChange.newBuilder(TestRows.random(random, 1 + i % 3, i))
          .setCreatedTime(random.nextLong(20L * 24 * 3_600_000)).build());
    }
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      for (int part = 0; part < 3; part++) { // three segments: each has its own leaf comparator
        ShardWriteBatch batch = TestRows.batch(0, part, rows.subList(part * 200, part * 200 + 200), false);
        shard.write(batch, TestRows.BATCHES.encode(batch));
        shard.refresh();
      }
      Expr revenue = Expr.Call.of(Op.TIMES, new Expr.Column("price"), new Expr.Column("quantity"));
      check(shard, rows, List.of(new Key(revenue, true)), 50, "");
      check(shard, rows, List.of(new Key(Expr.Call.of(Op.DATE, CREATED), false),
          new Key(new Expr.Column("price"), true)), 40, "");
      check(shard, rows, List.of(new Key(Expr.Call.of(Op.LOWER, new Expr.Column("title")), false)), 30, "");
      check(shard, rows, List.of(new Key(Expr.Call.of(Op.DATE_PART, new Expr.Literal("HOUR"), CREATED), true),
          new Key(Expr.Call.of(Op.DIVIDE, new Expr.Column("price"), new Expr.Column("quantity")), false)), 25,
          "+08:00");
    } finally {
      scheduler.shutdownNow();
    }
  }

  /**
   * The values an expression's queue holds are reserved against the query's memory as the queue grows: an ORDER BY of
   * a long text is refused naming them; the same query fits a budget above what the queue holds at most, less than
   * all the values it took in and let go (about 280 of these for 100 slots over 600 rows in random order).
   */
  @Test
  void theValuesTheQueueHoldsAreReservedAgainstTheQuerysMemory() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(6);
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      rows.add(TestRows.random(random, 1, i));
    }
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      ShardWriteBatch batch = TestRows.batch(0, 0, rows, false);
      shard.write(batch, TestRows.BATCHES.encode(batch));
      shard.refresh();
      // 100 values of 20,000 characters: about 4 MB held by the queue at once.
      Expr padded = Expr.Call.of(Op.LPAD, new Expr.Column("title"), new Expr.Literal(20_000L),
          new Expr.Literal("x"));
      Query query = Query.newBuilder().setLimit(100).addSort(SortField.newBuilder()
          .setExpression(ExpressionCodec.encode(padded))).build();
      MemoryBudget tight = new MemoryBudget(1L << 30, 1L << 20, "--read-memory", "--request-read-memory");
      assertThatThrownBy(() -> search(shard, query, tight)).isInstanceOf(MemoryBudget.Exceeded.class)
          .hasMessageContaining("the ORDER BY values of 100 top hits");
      MemoryBudget roomy = new MemoryBudget(1L << 30, 6L << 20, "--read-memory", "--request-read-memory");
      assertThat(search(shard, query, roomy).getHitsCount()).isEqualTo(100);
      assertThat(tight.used()).isZero();
      assertThat(roomy.used()).isZero();
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static SearchResponse search(Shard shard, Query query, MemoryBudget budget) throws IOException {
    IndexSearcher searcher = shard.index().searchers().acquire();
    try (MemoryBudget.Reservation memory = budget.open()) {
      return ShardSearch.run(searcher, query, memory);
    } finally {
      shard.index().searchers().release(searcher);
    }
  }

  private static void check(Shard shard, List<TransactionLogChange> rows, List<Key> keys, int limit, String zone)
      throws IOException {
    Query.Builder query = Query.newBuilder().setLimit(limit).setTimeZone(zone);
    for (Key key : keys) {
      SortField.Builder field = SortField.newBuilder().setDescending(key.descending());
      if (key.expr() instanceof Expr.Column column) {
        field.setField(column.name());
      } else {
        field.setExpression(ExpressionCodec.encode(key.expr()));
      }
      query.addSort(field);
    }
    List<List<Object>> found = new ArrayList<>();
    for (Hit hit : ShardQueries.search(shard, query.build()).getHitsList()) {
      List<Object> entry = new ArrayList<>();
      hit.getSortValuesList().forEach(value -> entry.add(SqlValueCodec.decode(value)));
      entry.add(hit.getTenantId());
      entry.add(hit.getRowId());
      found.add(entry);
    }
    assertThat(found).as("ordered by %s in '%s'", keys, zone).isEqualTo(expected(rows, keys, limit, zone));
  }

  /** The rows' sort values and ids, sorted as MySQL orders them, the first {@code limit}. */
  private static List<List<Object>> expected(List<TransactionLogChange> rows, List<Key> keys, int limit,
      String zone) {
    Evaluator evaluator = new Evaluator((chars, function) -> { },
        zone.isEmpty() ? SessionTimeZone.DEFAULT : SessionTimeZone.parse(zone));
    List<List<Object>> entries = new ArrayList<>();
    for (TransactionLogChange change : rows) {
      TableRow row = TableRow.of(change);
      List<Object> entry = new ArrayList<>();
      keys.forEach(key -> entry.add(evaluator.eval(key.expr(), row)));
      entry.add(row.tenantId());
      entry.add(row.rowId());
      entries.add(entry);
    }
    Comparator<List<Object>> order = (a, b) -> {
      for (int i = 0; i < keys.size(); i++) {
        int sign = SqlValues.compareNullsLowest(a.get(i), b.get(i));
        if (sign != 0) {
          return keys.get(i).descending() ? -sign : sign;
        }
      }
      return Long.compare((Long) a.get(keys.size()), (Long) b.get(keys.size())) != 0
          ? Long.compare((Long) a.get(keys.size()), (Long) b.get(keys.size()))
          : Long.compare((Long) a.get(keys.size() + 1), (Long) b.get(keys.size() + 1));
    };
    entries.sort(order);
    return entries.subList(0, limit);
  }
}
