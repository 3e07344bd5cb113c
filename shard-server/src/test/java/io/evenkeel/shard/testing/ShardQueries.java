package io.evenkeel.shard.testing;

import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.search.ShardSearch;
import java.io.IOException;
import org.apache.lucene.search.IndexSearcher;

/** A query run on a shard's current searcher, as the gRPC service runs it, without a memory bound. */
public final class ShardQueries {
  private ShardQueries() {}

  public static SearchResponse search(Shard shard, Query query) throws IOException {
    IndexSearcher searcher = shard.index().searchers().acquire();
    try {
      return ShardSearch.run(searcher, query);
    } finally {
      shard.index().searchers().release(searcher);
    }
  }
}
