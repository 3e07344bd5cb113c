package io.evenkeel.shard.grpc;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.FetchRequest;
import io.evenkeel.schemas.shard.FetchResponse;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.search.ShardSearch;
import io.evenkeel.shard.server.Shard;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.lucene.search.IndexSearcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC face of a server's shards. Bad input (unknown shard, undecodable batch, invalid change or query) answers
 * with a status whose description names the problem; the server keeps serving.
 */
public final class ShardGrpcService extends ShardServiceGrpc.ShardServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(ShardGrpcService.class);
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  /** Thrown by the shard lookup for a shard this server does not host. */
  public static final class UnknownShardException extends RuntimeException {
    public UnknownShardException(String message) {
      super(message);
    }
  }

  private interface Call<T> {
    T run() throws Exception;
  }

  private final IntFunction<Shard> shards;

  /** {@code shards} returns the hosted shard or throws {@link UnknownShardException}. */
  public ShardGrpcService(IntFunction<Shard> shards) {
    this.shards = shards;
  }

  @Override
  public void write(WriteRequest request, StreamObserver<WriteResponse> response) {
    answer(response, () -> {
      Shard shard = shards.apply(request.getShard());
      byte[] bytes = request.getBatch().toByteArray();
      ShardWriteBatch batch;
      try {
        batch = BATCHES.decode(bytes);
      } catch (MalformedRecordException e) {
        throw new IllegalArgumentException("batch for shard " + request.getShard() + ": " + e.getMessage(), e);
      }
      Shard.WriteResult result = shard.write(batch, bytes);
      return WriteResponse.newBuilder()
          .setFirstSeqNo(result.firstSeqNo())
          .setLastSeqNo(result.lastSeqNo())
          .setApplied(result.applied())
          .setIgnored(result.ignored())
          .setTranslogGeneration(result.location().generation())
          .setTranslogOffset(result.location().offset())
          .build();
    });
  }

  @Override
  public void search(SearchRequest request, StreamObserver<SearchResponse> response) {
    answer(response, () -> {
      Shard shard = shards.apply(request.getShard());
      IndexSearcher searcher = shard.index().searchers().acquire();
      try {
        return ShardSearch.run(searcher, request.getQuery(), shard.settings().hotAttributes());
      } finally {
        shard.index().searchers().release(searcher);
      }
    });
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> response) {
    answer(response, () -> {
      List<RowKey> keys = new ArrayList<>(request.getIdsCount());
      for (RowId id : request.getIdsList()) {
        keys.add(new RowKey(id.getTenantId(), id.getRowId()));
      }
      FetchResponse.Builder rows = FetchResponse.newBuilder();
      for (byte[] row : shards.apply(request.getShard()).fetch(keys)) {
        rows.addRows(com.google.protobuf.ByteString.copyFrom(row));
      }
      return rows.build();
    });
  }

  @Override
  public void stats(StatsRequest request, StreamObserver<ShardStats> response) {
    answer(response, () -> shards.apply(request.getShard()).stats());
  }

  private static <T> void answer(StreamObserver<T> response, Call<T> call) {
    T result;
    try {
      result = call.run();
    } catch (UnknownShardException e) {
      response.onError(Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalArgumentException e) {
      response.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (Exception e) {
      LOG.error("shard call failed", e);
      response.onError(Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
      return;
    }
    response.onNext(result);
    response.onCompleted();
  }
}
