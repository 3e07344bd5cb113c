package io.evenkeel.shard.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.shard.testing.TestRows;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shards write stored rows in smaller blocks than Lucene's default, under Lucene's own codec name: an index they
 * wrote (flushed and merged segments) must open with Lucene's default codec alone and give back every row.
 */
class ShardCodecTest {
  @TempDir Path dir;

  @Test
  void indexWrittenByAShardReadsWithLucenesDefaultCodec() throws Exception {
    Random random = new Random(3);
    Map<Long, TransactionLogChange> rows = new HashMap<>();
    try (ShardIndex index = new ShardIndex(dir, 1)) {
      for (long row = 0; row < 20_000; row++) {
        TransactionLogChange change = TestRows.random(random, 1 + random.nextInt(5), row);
        index.apply(change, row);
        rows.put(row, change);
        if (row % 2_000 == 1_999) {
          index.refresh(); // many small segments, then merged: both paths write stored fields
        }
      }
      index.forceMerge(2);
      index.commit(Map.of());
    }
    Map<Long, TransactionLogChange> read = new HashMap<>();
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(dir))) {
      for (LeafReaderContext leaf : reader.leaves()) {
        StoredFields stored = leaf.reader().storedFields();
        for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
          BytesRef source = stored.document(doc).getBinaryValue(IndexFields.SOURCE);
          TransactionLogChange row = TestRows.ROWS.decode(BytesRef.deepCopyOf(source).bytes);
          read.put(row.getRowId(), row);
        }
      }
    }
    assertThat(read).isEqualTo(rows);
  }
}
