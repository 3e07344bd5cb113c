package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.Op;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.Expression;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.TestRows;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment's kept groups answer as reading the segment would: the same buckets the second time, taken from the
 * cache; the new rows of a later segment, and the updates and deletes of rows in a kept one, counted at once; the
 * group cap checked all the same; nothing kept for a request that reads the clock, nor of a segment with more groups
 * than are kept.
 */
class SegmentAggregatesTest {
  private static final Expression DAY = ExpressionCodec.encode(Expr.Call.of(Op.DATE, Expr.Call.of(Op.FROM_UNIXTIME,
      Expr.Call.of(Op.DIVIDE, new Expr.Column("created_time"), new Expr.Literal(1_000L)))));

  @TempDir Path dir;
  private ScheduledExecutorService scheduler;
  private Shard shard;
  private long batches;

  @BeforeEach
  void openShardWithOneLargeSegment() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    shard = Shard.open(0, dir, new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of()), scheduler);
    Random random = new Random(5);
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int row = 0; row < 3 * SegmentAggregates.MIN_DOCS; row++) {
      rows.add(TestRows.random(random, 1 + row % 7, row));
    }
    write(rows);
  }

  @AfterEach
  void close() throws IOException {
    shard.close();
    scheduler.shutdownNow();
  }

  @Test
  void keptGroupsAnswerAsTheSegmentDoesAndFollowItsChanges() throws IOException {
    SegmentAggregates kept = new SegmentAggregates(SegmentAggregates.DEFAULT_BYTES);
    List<Query> queries = List.of(
        Query.newBuilder().addGroupBy("tenant_id").addAggregations(count()).addAggregations(of("SUM", "price"))
            .addAggregations(of("MIN", "created_time")).addAggregations(of("MAX", "seller_nick")).build(),
        Query.newBuilder().addGroupBy("status").addGroupBy("seller_nick").addAggregations(count())
            .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.AVG).setExpression(
                ExpressionCodec.encode(Expr.Call.of(Op.TIMES, new Expr.Column("price"), new Expr.Column("quantity")))))
            .build(),
        Query.newBuilder().addGroupByExpressions(DAY).addAggregations(count()).setTimeZone("+08:00").build(),
        Query.newBuilder().addAggregations(count()).addAggregations(of("SUM", "quantity")).build());
    for (Query query : queries) {
      assertThat(answer(query, kept)).as("first, read: %s", query).isEqualTo(answer(query, SegmentAggregates.NONE));
    }
    assertThat(kept.hits()).isZero();
    for (Query query : queries) {
      assertThat(answer(query, kept)).as("again, kept: %s", query).isEqualTo(answer(query, SegmentAggregates.NONE));
    }
    assertThat(kept.hits()).as("each query's large segment taken from the cache").isGreaterThanOrEqualTo(4);

    // New rows in a new segment; an update and a delete of rows in the kept one.
    Random random = new Random(6);
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int row = 100_000; row < 100_050; row++) {
      changes.add(TestRows.random(random, 8, row));
    }
    changes.add(TestRows.insert(1, 0, 2).setPrice(new BigDecimal("12345.67")).setSellerNick("zed").build());
    changes.add(TestRows.insert(2, 1, 2).setOp(ChangeOp.DELETE).build());
    write(changes);
    long hitsBefore = kept.hits();
    for (Query query : queries) {
      assertThat(answer(query, kept)).as("after the changes: %s", query)
          .isEqualTo(answer(query, SegmentAggregates.NONE));
    }
    assertThat(answer(queries.get(0), kept)).anyMatch(bucket -> bucket.getKey(0).getLongValue() == 8);

    // The group cap holds for groups taken from the cache.
    Query capped = queries.get(0).toBuilder().setMaxGroups(3).build();
    assertThatThrownBy(() -> answer(capped, kept)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than 3 groups on this shard");
    assertThat(kept.hits()).isGreaterThan(hitsBefore);

    // UNIX_TIMESTAMP() is the time it is evaluated: such a request is read each time.
    Expr afterNow = Expr.Call.of(Op.GT, new Expr.Column("created_time"), new Expr.Call(Op.UNIX_TIMESTAMP, List.of()));
    Query clock = Query.newBuilder().addGroupByExpressions(ExpressionCodec.encode(afterNow)).addAggregations(count())
        .build();
    long hitsNow = kept.hits();
    answer(clock, kept);
    answer(clock, kept);
    assertThat(kept.hits()).isEqualTo(hitsNow);

    // A segment of more groups than are kept is read into the shard's groups part of the way, and each time.
    Query byRow = Query.newBuilder().addGroupBy("row_id").addAggregations(count()).build();
    for (int i = 0; i < 2; i++) {
      assertThat(answer(byRow, kept)).hasSize(3 * SegmentAggregates.MIN_DOCS + 50 - 1)
          .isEqualTo(answer(byRow, SegmentAggregates.NONE));
    }
    assertThat(kept.hits()).isEqualTo(hitsNow);
  }

  private void write(List<TransactionLogChange> changes) throws IOException {
    ShardWriteBatch batch = TestRows.batch(0, batches++, changes, false);
    shard.write(batch, TestRows.BATCHES.encode(batch));
    shard.refresh();
  }

  private Set<Bucket> answer(Query query, SegmentAggregates kept) throws IOException {
    IndexSearcher searcher = shard.index().searchers().acquire();
    try (MemoryBudget.Reservation memory = MemoryBudget.unlimited().open()) {
      return Set.copyOf(ShardSearch.run(searcher, query, memory, kept).getBucketsList());
    } finally {
      shard.index().searchers().release(searcher);
    }
  }

  private static Aggregation count() {
    return Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT).build();
  }

  private static Aggregation of(String function, String field) {
    return Aggregation.newBuilder().setFunction(Aggregation.Function.valueOf(function)).setField(field).build();
  }
}
