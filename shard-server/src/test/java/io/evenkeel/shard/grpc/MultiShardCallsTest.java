package io.evenkeel.shard.grpc;

import static io.evenkeel.shard.testing.TestRows.BATCHES;
import static io.evenkeel.shard.testing.TestRows.batch;
import static io.evenkeel.shard.testing.TestRows.insert;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.shard.FetchRequest;
import io.evenkeel.schemas.shard.FetchShardsRequest;
import io.evenkeel.schemas.shard.FetchShardsResponse;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.RefreshShardsResponse;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.schemas.shard.SearchShardsRequest;
import io.evenkeel.schemas.shard.SearchShardsResponse;
import io.evenkeel.schemas.shard.ShardRefreshResult;
import io.evenkeel.schemas.shard.ShardSearchResult;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.translog.Durability;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One call for several shards of a server: each shard answers or fails on its own, as separate calls would. */
class MultiShardCallsTest {
  @TempDir Path dir;
  private ShardServer server;
  private final ClusterClient cluster = new ClusterClient();
  private ShardServiceGrpc.ShardServiceBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    server = new ShardServer(dir, Set.of(0, 1), new ShardSettings(Durability.REQUEST, 200, 60_000, 600_000, 16),
        new InetSocketAddress("127.0.0.1", 0));
    stub = cluster.blockingStub(new ShardAddress("127.0.0.1", server.start()));
    for (int shard = 0; shard < 2; shard++) {
      ShardWriteBatch batch = batch(shard, 1, List.of(insert(7, shard, 1).build(), insert(8, 10 + shard, 1).build()),
          true);
      stub.write(WriteRequest.newBuilder().setShard(shard).setBatch(ByteString.copyFrom(BATCHES.encode(batch))).build());
    }
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
    server.close();
  }

  @Test
  void everyShardAnswersOrFailsOnItsOwn() {
    Query tenantSeven = Query.newBuilder().setLimit(10).setTrackTotal(true).setFilter(Filter.newBuilder()
        .setTerm(Term.newBuilder().setField("tenant_id").setValue(Value.newBuilder().setLongValue(7)))).build();
    SearchShardsResponse searched = stub.searchShards(SearchShardsRequest.newBuilder()
        .addAllShards(List.of(0, 1, 5)).setQuery(tenantSeven).build());
    assertThat(searched.getResultsList()).extracting(ShardSearchResult::getShard).containsExactly(0, 1, 5);
    assertThat(searched.getResults(0).getResponse().getHits(0).getRowId()).isEqualTo(0);
    assertThat(searched.getResults(1).getResponse().getHits(0).getRowId()).isEqualTo(1);
    assertThat(searched.getResults(2).hasError()).isTrue();
    assertThat(searched.getResults(2).getError().getCode()).isEqualTo("NOT_FOUND");
    assertThat(searched.getResults(2).getError().getMessage()).contains("5");

    Query unknownColumn = Query.newBuilder().setLimit(10).setFilter(Filter.newBuilder()
        .setTerm(Term.newBuilder().setField("colour").setValue(Value.newBuilder().setStringValue("red")))).build();
    SearchShardsResponse invalid = stub.searchShards(SearchShardsRequest.newBuilder()
        .addAllShards(List.of(0, 1)).setQuery(unknownColumn).build());
    assertThat(invalid.getResultsList()).allSatisfy(result -> {
      assertThat(result.getError().getCode()).isEqualTo("INVALID_ARGUMENT");
      assertThat(result.getError().getMessage()).contains("colour");
    });

    FetchShardsResponse fetched = stub.fetchShards(FetchShardsRequest.newBuilder()
        .addRequests(FetchRequest.newBuilder().setShard(0)
            .addIds(RowId.newBuilder().setTenantId(8).setRowId(10))
            .addIds(RowId.newBuilder().setTenantId(8).setRowId(11)))
        .addRequests(FetchRequest.newBuilder().setShard(1)
            .addIds(RowId.newBuilder().setTenantId(8).setRowId(11)))
        .build());
    assertThat(fetched.getResults(0).getResponse().getRowsCount()).isEqualTo(1); // row 11 lives on shard 1
    assertThat(fetched.getResults(1).getResponse().getRowsCount()).isEqualTo(1);
  }

  @Test
  void aRefreshCallMakesAcknowledgedWritesSearchableOnEachShardItNames() {
    // The server refreshes every 60 s on its own: these writes stay invisible until the call.
    for (int shard = 0; shard < 2; shard++) {
      ShardWriteBatch batch = batch(shard, 2, List.of(insert(9, 20 + shard, 2).build()), false);
      stub.write(WriteRequest.newBuilder().setShard(shard).setBatch(ByteString.copyFrom(BATCHES.encode(batch)))
          .build());
    }
    Query tenantNine = Query.newBuilder().setLimit(10).setTrackTotal(true).setFilter(Filter.newBuilder()
        .setTerm(Term.newBuilder().setField("tenant_id").setValue(Value.newBuilder().setLongValue(9)))).build();
    SearchShardsRequest search = SearchShardsRequest.newBuilder().addAllShards(List.of(0, 1)).setQuery(tenantNine)
        .build();
    assertThat(stub.searchShards(search).getResultsList()).allSatisfy(
        result -> assertThat(result.getResponse().getHitsCount()).isZero());

    RefreshShardsResponse refreshed = stub.refreshShards(RefreshShardsRequest.newBuilder()
        .addAllShards(List.of(0, 1, 5)).build());
    assertThat(refreshed.getResultsList()).extracting(ShardRefreshResult::getShard).containsExactly(0, 1, 5);
    assertThat(refreshed.getResults(0).hasError()).isFalse();
    assertThat(refreshed.getResults(1).hasError()).isFalse();
    assertThat(refreshed.getResults(2).getError().getCode()).isEqualTo("NOT_FOUND");
    assertThat(stub.searchShards(search).getResultsList()).allSatisfy(
        result -> assertThat(result.getResponse().getHitsCount()).isEqualTo(1));
  }
}
