package io.evenkeel.shard.warmup;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.Op;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.search.ShardSearch;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.IOUtils;

/**
 * Runs a server's write and search code once over a throwaway shard of generated rows, so that the first real query
 * after a start does not pay for loading and compiling it: a first dashboard aggregation took 0.75 s of the shard
 * server's CPU after a restart, against a few milliseconds once warm. The rows are written as batches through the
 * translog and the index, then searched with the shapes the query service sends most: one tenant's newest rows in a
 * time window, counts and sums by tenant, counts by status and day. Nothing of it is kept.
 */
public final class SearchWarmUp {
  /** Enough rows that every per-row loop is compiled, few enough to take well under a second. */
  private static final int ROWS = 6_000;
  private static final int TENANTS = 50;
  private static final int BATCH = 500;
  private static final int ROUNDS = 3;
  private static final long DAY = 86_400_000L;
  private static final long START = 1_700_000_000_000L;
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  private SearchWarmUp() {}

  /**
   * What a warm-up did: how long it took, and the fewest hits or groups any of its searches found (0 would mean a
   * search that never reached its per-row code).
   */
  public record Done(long millis, int fewestFound) {}

  /** Writes and searches a shard in {@code directory}, deleted before (what a stopped warm-up left) and after. */
  public static Done run(Path directory) throws IOException {
    long started = System.nanoTime();
    int fewestFound = Integer.MAX_VALUE;
    IOUtils.rm(directory);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "warm-up-shard");
      thread.setDaemon(true);
      return thread;
    });
    try (Shard shard = Shard.open(0, directory, new ShardSettings(Durability.INTERVAL, 60_000, 60_000, 600_000, 16,
        Set.of()), scheduler)) {
      write(shard);
      shard.refresh();
      IndexSearcher searcher = shard.index().searchers().acquire();
      try {
        for (int round = 0; round < ROUNDS; round++) {
          for (Query query : queries(round)) {
            SearchResponse response = ShardSearch.run(searcher, query);
            fewestFound = Math.min(fewestFound, response.getHitsCount() + response.getBucketsCount());
          }
        }
      } finally {
        shard.index().searchers().release(searcher);
      }
    } finally {
      scheduler.shutdownNow();
      IOUtils.rm(directory);
    }
    return new Done((System.nanoTime() - started) / 1_000_000, fewestFound);
  }

  private static void write(Shard shard) throws IOException {
    Random random = new Random(ROWS);
    List<TransactionLogChange> changes = new ArrayList<>(BATCH);
    long sequence = 0;
    for (int row = 0; row < ROWS; row++) {
      long tenant = (long) Math.pow(TENANTS, random.nextDouble()); // 1 to 49: a few large tenants, many small ones
      changes.add(TransactionLogChange.newBuilder()
          .setOp(ChangeOp.INSERT)
          .setTenantId(tenant)
          .setRowId(row)
          .setCreatedTime(START + random.nextInt(7) * DAY + random.nextInt((int) DAY))
          .setModifiedTime(START + 7 * DAY)
          .setVersion(1)
          .setStatus(random.nextInt(6))
          .setBuyerId((long) random.nextInt(1_000))
          .setSellerNick("seller-" + tenant)
          .setBuyerNick("buyer-" + random.nextInt(1_000))
          .setTitle("item w" + random.nextInt(500) + " w" + random.nextInt(500))
          .setPrice(BigDecimal.valueOf(random.nextInt(1_000_000), 2))
          .setQuantity(1 + random.nextInt(10))
          .setGroupId(random.nextBoolean() ? null : (long) random.nextInt(100))
          .setAttributes("color:red;size:" + random.nextInt(5))
          .build());
      if (changes.size() == BATCH || row == ROWS - 1) {
        ShardWriteBatch batch = ShardWriteBatch.newBuilder().setShard(0).setSender("warm-up")
            .setBatchSequence(sequence++).setSentTime(System.currentTimeMillis()).setWaitForRefresh(false)
            .setChanges(List.copyOf(changes)).build();
        shard.write(batch, BATCHES.encode(batch));
        changes.clear();
      }
    }
  }

  /** The shapes the query service sends for a tenant's page and for cross-tenant analytics, on other values each round. */
  private static List<Query> queries(int round) {
    long tenant = 1 + round;
    long from = START + round * DAY;
    Filter window = range("created_time", from, from + 3 * DAY);
    Filter tenantWindow = Filter.newBuilder().setCompositeRange(CompositeRange.newBuilder().setIndex("tenant_created")
        .addLower(number(tenant)).addLower(number(from)).addUpper(number(tenant)).addUpper(number(from + 3 * DAY)))
        .build();
    Query page = Query.newBuilder()
        .setFilter(Filter.newBuilder().setBool(Bool.newBuilder().addMust(tenantWindow)
            .addMust(range("price", 100 + round, 9_000))
            .addMust(Filter.newBuilder().setTerm(Term.newBuilder().setField("seller_nick")
                .setValue(Value.newBuilder().setStringValue("seller-" + tenant))))))
        .addSort(SortField.newBuilder().setField("created_time").setDescending(true))
        .setLimit(100).setIncludeRows(true).setOrderedByComposite(true).build();
    Expr day = Expr.Call.of(Op.DATE, Expr.Call.of(Op.FROM_UNIXTIME,
        Expr.Call.of(Op.DIVIDE, new Expr.Column("created_time"), new Expr.Literal(1000L))));
    Query topTenants = Query.newBuilder().setFilter(window).addGroupBy("tenant_id")
        .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT)).build();
    Query statusByDay = Query.newBuilder().setFilter(window)
        .addGroupByExpressions(ExpressionCodec.encode(new Expr.Column("status")))
        .addGroupByExpressions(ExpressionCodec.encode(day))
        .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT)).build();
    Query revenue = Query.newBuilder().setFilter(window).addGroupBy("tenant_id")
        .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.SUM).setField("price")).build();
    return List.of(page, topTenants, statusByDay, revenue);
  }

  private static Filter range(String field, long lower, long upper) {
    return Filter.newBuilder().setRange(Range.newBuilder().setField(field).setLower(number(lower))
        .setUpper(number(upper)).setLowerInclusive(true).setUpperInclusive(false)).build();
  }

  private static Value number(long value) {
    return Value.newBuilder().setLongValue(value).build();
  }
}
