package io.evenkeel.shard.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.shard.testing.TestRows;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Indexing rows again for keys listed after they were written, racing the changes of the same rows. */
class ReindexTest {
  @TempDir Path dir;

  @Test
  void aRowChangedAfterItWasReadIsNotIndexedAgainFromTheOlderVersion() throws IOException {
    HotAttributes hot = HotAttributes.of(Set.of());
    try (ShardIndex index = new ShardIndex(dir, 0, 16, hot, PrimaryTerm.COMMITTED, files -> {})) {
      for (long row = 0; row < 3; row++) {
        index.apply(TestRows.insert(1, row, 1).setAttributes("color:red").build(), row);
      }
      index.refresh();
      hot.set(Set.of("color"));
      try (UnindexedRows unindexed = index.unindexedRows()) {
        List<UnindexedRows.UnindexedRow> rows = unindexed.next(10);
        assertThat(rows).hasSize(3);
        // Between the read and the write: row 1 changes, row 2 is deleted.
        index.apply(TestRows.insert(1, 1, 2).setAttributes("color:blue").build(), 3);
        index.apply(TestRows.insert(1, 2, 3).setOp(ChangeOp.DELETE).build(), 4);
        assertThat(index.reindex(rows)).as("rows indexed again").isEqualTo(1);
        assertThat(unindexed.next(10)).as("the rest of the pass").isEmpty();
      }
      index.refresh();
      IndexSearcher searcher = index.searchers().acquire();
      try {
        assertThat(index.unindexedRowCount(searcher)).isZero();
        assertThat(searcher.count(new TermQuery(new Term("attr.color", "red")))).as("rows 0 red").isEqualTo(1);
        assertThat(searcher.count(new TermQuery(new Term("attr.color", "blue")))).as("row 1 blue").isEqualTo(1);
        assertThat(index.lookup(new RowKey(1, 1)).version()).isEqualTo(2);
        assertThat(index.lookup(new RowKey(1, 2)).deleted()).as("row 2 stays deleted").isTrue();
      } finally {
        index.searchers().release(searcher);
      }
    }
  }

  @Test
  void aPassWaitsForANewerPointRatherThanMeetTheRowsItIndexedAgain() throws IOException {
    HotAttributes hot = HotAttributes.of(Set.of());
    try (ShardIndex index = new ShardIndex(dir, 0, 16, hot, PrimaryTerm.COMMITTED, files -> {})) {
      index.apply(TestRows.insert(1, 0, 1).setAttributes("size:M").build(), 0);
      index.refresh();
      hot.set(Set.of("size"));
      try (UnindexedRows unindexed = index.unindexedRows()) {
        assertThat(index.reindex(unindexed.next(10))).isEqualTo(1);
        assertThat(unindexed.next(10)).as("the same point again").isEmpty();
        index.refresh();
        assertThat(unindexed.next(10)).as("the refreshed point").isEmpty();
      }
    }
  }
}
