package io.evenkeel.shard.engine;

import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.shard.index.RowKey;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;

/** A copy of one shard that answers reads: the primary ({@link Shard}) or a replica ({@link ReplicaShard}). */
public interface ShardCopy extends Closeable {
  int id();

  /** The searchers over the rows this copy makes searchable. */
  ReferenceManager<IndexSearcher> searchers() throws IOException;

  /** The stored bytes of each live row among {@code keys}, in order; absent and deleted rows are skipped. */
  List<byte[]> fetch(List<RowKey> keys) throws IOException;

  /** Makes every acknowledged write searchable on this copy. */
  void refresh() throws IOException;

  ShardStats stats() throws IOException;
}
