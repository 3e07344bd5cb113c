package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.AccessPath;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The composite index (tenant_id, created_time) over a shard whose segments hold disjoint time slices, as a shard
 * that takes rows in time order does. Segments a range cannot touch are skipped by their own tenant and time bounds,
 * and a page ordered by created_time is read from the range's end in steps: the answers must stay those of a
 * brute-force filter and of an ordinary search.
 */
class CompositeIndexSearchTest {
  private static final int SLICES = 6;
  private static final int ROWS_PER_SLICE = 4_000;

  @TempDir static Path dir;
  private static ScheduledExecutorService scheduler;
  private static Shard shard;
  private static final List<TransactionLogChange> rows = new ArrayList<>();

  @BeforeAll
  static void load() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    shard = Shard.open(0, dir, new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 32), scheduler);
    Random random = new Random(42);
    for (int slice = 0; slice < SLICES; slice++) {
      List<TransactionLogChange> batch = new ArrayList<>();
      for (int i = 0; i < ROWS_PER_SLICE; i++) {
        long row = (long) slice * ROWS_PER_SLICE + i;
        // tenants 1-4 in every slice, tenant 5 only in the first: its rows lie in one segment;
        // tenant 1 holds half the rows: enough for its pages to be read in slices
        long tenant = slice == 0 && i % 10 == 0 ? 5 : random.nextBoolean() ? 1 : 2 + random.nextInt(3);
        // few distinct times, so that pages end inside runs of equal created_time
        batch.add(TestRows.insert(tenant, row, 1).setCreatedTime(slice * 1_000L + random.nextInt(250) * 4)
            .setStatus(random.nextInt(4)).build());
      }
      ShardWriteBatch write = TestRows.batch(0, slice, batch, true);
      shard.write(write, TestRows.BATCHES.encode(write));
      shard.refresh(); // one segment per time slice
      rows.addAll(batch);
    }
  }

  @AfterAll
  static void close() throws IOException {
    shard.close();
    scheduler.shutdownNow();
  }

  @Test
  void rangesOverTimeSlicedSegmentsMatchBruteForce() throws IOException {
    assertThat(shard.index().segmentCount()).isEqualTo(SLICES);
    Random random = new Random(7);
    int nonEmpty = 0;
    for (int i = 0; i < 200; i++) {
      long lowTenant = 1 + random.nextInt(5);
      // across tenants, every time of the tenants strictly inside the range matches: segment time bounds must not
      // rule those rows out
      long highTenant = lowTenant + (random.nextInt(3) == 0 ? 1 : 0);
      long from = random.nextInt(6_500) - 250;
      long to = from + random.nextInt(2_500);
      List<Long> expected = rows.stream()
          .filter(r -> compare(r, lowTenant, from) >= 0 && compare(r, highTenant, to) <= 0)
          .map(TransactionLogChange::getRowId).sorted().toList();
      nonEmpty += expected.isEmpty() ? 0 : 1;
      Query query = Query.newBuilder().setFilter(composite(lowTenant, from, highTenant, to)).setLimit(30_000)
          .addSort(SortField.newBuilder().setField("row_id")).build();
      assertThat(search(query).stream().map(Hit::getRowId).toList())
          .as("[%d, %d]..[%d, %d]", lowTenant, from, highTenant, to).isEqualTo(expected);
    }
    assertThat(nonEmpty).isGreaterThan(150);
  }

  @Test
  void pagesReadAlongTheCompositeOrderEqualOrdinarySearches() throws IOException {
    Random random = new Random(11);
    int stepped = 0;
    for (int i = 0; i < 400; i++) {
      long tenant = random.nextBoolean() ? 1 : 2 + random.nextInt(4);
      long from = random.nextBoolean() ? Long.MIN_VALUE : random.nextInt(6_000) - 250;
      long to = random.nextInt(4) == 0 ? Long.MAX_VALUE : Math.max(from, 0) + random.nextInt(4_000);
      Filter filter = composite(tenant, from, tenant, to);
      if (random.nextBoolean()) { // a doc-values check that drops some of the range's rows
        filter = Filter.newBuilder().setBool(Bool.newBuilder().addMust(filter)
            .addMust(Filter.newBuilder().setTerms(Terms.newBuilder().setField("status").setAccess(AccessPath.DOC_VALUES)
                .addValues(Value.newBuilder().setLongValue(random.nextInt(4)))
                .addValues(Value.newBuilder().setLongValue(random.nextInt(4)))))).build();
      }
      Query.Builder query = Query.newBuilder().setFilter(filter).setLimit(1 + random.nextInt(random.nextBoolean() ? 5 : 60))
          .addSort(SortField.newBuilder().setField("created_time").setDescending(random.nextBoolean()));
      List<Hit> ordinary = search(query.build());
      List<Hit> ordered = search(query.setOrderedByComposite(true).build());
      assertThat(ordered).as("%s", query).isEqualTo(ordinary);
      stepped += ordinary.size() == query.getLimit() ? 1 : 0;
    }
    assertThat(stepped).as("queries that fill their page").isGreaterThan(150);
  }

  /** Orders a row against a composite key: (tenant_id, created_time) lexicographically. */
  private static int compare(TransactionLogChange row, long tenant, long created) {
    int byTenant = Long.compare(row.getTenantId(), tenant);
    return byTenant != 0 ? byTenant : Long.compare(row.getCreatedTime(), created);
  }

  private static Filter composite(long lowTenant, long from, long highTenant, long to) {
    return Filter.newBuilder().setCompositeRange(CompositeRange.newBuilder().setIndex("tenant_created")
        .addLower(longValue(lowTenant)).addLower(longValue(from))
        .addUpper(longValue(highTenant)).addUpper(longValue(to))).build();
  }

  private static List<Hit> search(Query query) throws IOException {
    return ShardQueries.search(shard, query).getHitsList();
  }

  private static Value longValue(long value) {
    return Value.newBuilder().setLongValue(value).build();
  }
}
