package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Frequency-based indexing: hot attribute keys are keyword fields; a filter on another key is refused. */
class HotAttributesTest {
  @TempDir Path dir;

  @Test
  void hotKeysAreIndexedAsKeywordFieldsAndColdKeysAreRefused() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of("color"));
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      List<TransactionLogChange> rows = List.of(
          TestRows.insert(1, 1, 1).setAttributes("color:red;size:M").build(),
          TestRows.insert(1, 2, 1).setAttributes("size:S;color:blue;color:red").build(),
          TestRows.insert(1, 3, 1).setAttributes("colorless:red").build(),
          TestRows.insert(1, 4, 1).build());
      ShardWriteBatch batch = TestRows.batch(0, 0, rows, false);
      shard.write(batch, TestRows.BATCHES.encode(batch));
      shard.refresh();

      assertThat(rowIds(shard, "attr.color", "red", settings)).containsExactly(1L);
      // The first occurrence of a key wins, as the query service's attr() reads it.
      assertThat(rowIds(shard, "attr.color", "blue", settings)).containsExactly(2L);
      assertThatThrownBy(() -> rowIds(shard, "attr.size", "M", settings))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("attribute key 'size' is not indexed on this shard server (hot attributes: [color]); "
              + "filter it by scanning the rows' attributes");
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static List<Long> rowIds(Shard shard, String field, String value, ShardSettings settings)
      throws IOException {
    Query query = Query.newBuilder().setLimit(10).setFilter(Filter.newBuilder().setTerm(Term.newBuilder()
        .setField(field).setValue(Value.newBuilder().setStringValue(value)))).build();
    IndexSearcher searcher = shard.index().searchers().acquire();
    try {
      return ShardSearch.run(searcher, query, settings.hotAttributes()).getHitsList().stream()
          .map(hit -> hit.getRowId()).toList();
    } finally {
      shard.index().searchers().release(searcher);
    }
  }
}
