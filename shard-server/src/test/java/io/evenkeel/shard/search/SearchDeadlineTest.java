package io.evenkeel.shard.search;

import static io.evenkeel.shard.testing.TestRows.BATCHES;
import static io.evenkeel.shard.testing.TestRows.batch;
import static io.evenkeel.shard.testing.TestRows.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.ShardSearcher;
import io.evenkeel.shard.translog.Durability;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A search past its caller's deadline stops inside Lucene's scoring loop instead of running to the end. */
class SearchDeadlineTest {
  @TempDir Path dir;

  @Test
  void aSearchPastItsDeadlineStopsAndOneWithinItAnswers() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (Shard shard = Shard.open(0, dir, new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16),
        scheduler)) {
      List<TransactionLogChange> rows = new ArrayList<>();
      for (int row = 0; row < 50_000; row++) {
        rows.add(insert(row % 100, row, 1).build());
      }
      ShardWriteBatch written = batch(0, 1, rows, true);
      shard.write(written, BATCHES.encode(written));
      Query everything = Query.newBuilder().setLimit(10).setTrackTotal(true)
          .addSort(SortField.newBuilder().setField("created_time").setDescending(true)).build();
      ReferenceManager<IndexSearcher> searchers = shard.searchers();
      IndexSearcher searcher = searchers.acquire();
      try {
        assertThatThrownBy(() -> ShardSearch.run(ShardSearcher.until(searcher, System.nanoTime() - 1), everything))
            .isInstanceOf(ShardSearcher.SearchTimeoutException.class)
            .hasMessageContaining("passed its deadline");
        long inTime = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        assertThat(ShardSearch.run(ShardSearcher.until(searcher, inTime), everything).getTotal()).isEqualTo(50_000);
      } finally {
        searchers.release(searcher);
      }
    } finally {
      scheduler.shutdownNow();
    }
  }
}
