package io.evenkeel.ingest.detect;

import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Each tenant's rows across all shards (an aggregate query per shard), for the initial rules of a loaded cluster. */
final class StorageShares {
  private StorageShares() {}

  static Map<Long, Long> rowsPerTenant(ShardPlacement placement, ClientTls tls) {
    Map<Long, Long> rows = new HashMap<>();
    try (ClusterClient cluster = new ClusterClient(tls)) {
      for (int shard = 0; shard < placement.numShards(); shard++) {
        Query query = Query.newBuilder().addGroupBy("tenant_id")
            .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT)).build();
        for (Bucket bucket : cluster.blockingStub(placement.primaryOf(shard).orElseThrow())
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .search(SearchRequest.newBuilder().setShard(shard).setQuery(query).build()).getBucketsList()) {
          rows.merge(bucket.getKey(0).getLongValue(), bucket.getDocCount(), Long::sum);
        }
      }
    }
    return rows;
  }
}
