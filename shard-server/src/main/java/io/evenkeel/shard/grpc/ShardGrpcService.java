package io.evenkeel.shard.grpc;

import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.FetchRequest;
import io.evenkeel.schemas.shard.FetchResponse;
import io.evenkeel.schemas.shard.FetchShardsRequest;
import io.evenkeel.schemas.shard.FetchShardsResponse;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.RefreshShardsResponse;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.router.memory.MemoryBudget;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.SearchShardsRequest;
import io.evenkeel.schemas.shard.SearchShardsResponse;
import io.evenkeel.schemas.shard.ShardError;
import io.evenkeel.schemas.shard.ShardFetchResult;
import io.evenkeel.schemas.shard.ShardRefreshResult;
import io.evenkeel.schemas.shard.ShardSearchResult;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.evenkeel.shard.engine.ReplicaShard;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardCopy;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.index.ShardSearcher;
import io.evenkeel.shard.search.ShardSearch;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;
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

  /**
   * Runs the shards of a multi-shard call in parallel, as separate calls would run on gRPC's executor: as many
   * threads as calls of a kind have, so that one heavy call's shards do not queue every other call's behind them.
   */
  private static final ExecutorService SHARD_CALLS = Executors.newFixedThreadPool(
      Math.max(8, 4 * Runtime.getRuntime().availableProcessors()), runnable -> {
        Thread thread = new Thread(runnable, "shard-calls");
        thread.setDaemon(true);
        return thread;
      });

  /** How long before the caller's deadline a search stops, at most (a tenth of the time left, if that is less). */
  private static final long ANSWER_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final IntFunction<ShardCopy> shards;
  private final MemoryBudget memory;

  /** {@code shards} returns the hosted copy of a shard or throws {@link UnknownShardException}. */
  public ShardGrpcService(IntFunction<ShardCopy> shards) {
    this(shards, MemoryBudget.unlimited());
  }

  /**
   * With reads bounded by {@code memory}: each search or fetch call (all its shards together) reserves what it builds
   * and answers, and is refused once over the request's or the server's limit.
   */
  public ShardGrpcService(IntFunction<ShardCopy> shards, MemoryBudget memory) {
    this.shards = shards;
    this.memory = memory;
  }

  private Shard primary(int shard) {
    if (shards.apply(shard) instanceof Shard primary) {
      return primary;
    }
    throw new IllegalStateException("this server holds a replica of shard " + shard + ", not its primary: write to the"
        + " primary");
  }

  @Override
  public void write(WriteRequest request, StreamObserver<WriteResponse> response) {
    answer(response, () -> {
      Shard shard = primary(request.getShard());
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
    try (MemoryBudget.Reservation reserved = memory.open()) {
      answer(response, () -> search(request.getShard(), request.getQuery(), reserved));
    }
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> response) {
    try (MemoryBudget.Reservation reserved = memory.open()) {
      answer(response, () -> fetch(request, reserved));
    }
  }

  /** All the call's shards share one reservation: together they make one answer. */
  @Override
  public void searchShards(SearchShardsRequest request, StreamObserver<SearchShardsResponse> response) {
    try (MemoryBudget.Reservation reserved = memory.open()) {
      answer(response, () -> SearchShardsResponse.newBuilder()
          .addAllResults(inParallel(request.getShardsList(), shard -> {
            ShardSearchResult.Builder result = ShardSearchResult.newBuilder().setShard(shard);
            ShardError error = perShard(() -> result.setResponse(search(shard, request.getQuery(), reserved)));
            return (error == null ? result : result.setError(error)).build();
          }))
          .build());
    }
  }

  @Override
  public void fetchShards(FetchShardsRequest request, StreamObserver<FetchShardsResponse> response) {
    try (MemoryBudget.Reservation reserved = memory.open()) {
      answer(response, () -> FetchShardsResponse.newBuilder()
          .addAllResults(inParallel(request.getRequestsList(), one -> {
            ShardFetchResult.Builder result = ShardFetchResult.newBuilder().setShard(one.getShard());
            ShardError error = perShard(() -> result.setResponse(fetch(one, reserved)));
            return (error == null ? result : result.setError(error)).build();
          }))
          .build());
    }
  }

  /**
   * Runs {@code call} on each item, all but the last on the shard-call pool and the last on this thread (a hand-off
   * to another thread costs about as much as a small shard search); the results in the items' order.
   */
  private static <I, R> List<R> inParallel(List<I> items, Function<I, R> call) {
    List<CompletableFuture<R>> futures = new ArrayList<>(items.size());
    // In the call's context, so that its deadline bounds the work on the pool too.
    Executor pool = Context.currentContextExecutor(SHARD_CALLS);
    for (I item : items.subList(0, Math.max(0, items.size() - 1))) {
      futures.add(CompletableFuture.supplyAsync(() -> call.apply(item), pool));
    }
    if (!items.isEmpty()) {
      futures.add(CompletableFuture.completedFuture(call.apply(items.get(items.size() - 1))));
    }
    return futures.stream().map(CompletableFuture::join).toList();
  }

  private SearchResponse search(int shardId, io.evenkeel.schemas.shard.Query query,
      MemoryBudget.Reservation reserved) throws IOException {
    ShardCopy shard = shards.apply(shardId);
    var searchers = shard.searchers();
    IndexSearcher searcher = searchers.acquire();
    try {
      // The caller's deadline (the query service sends what is left of its own) bounds the work, not only the wait;
      // so does the caller's cancellation (it gave up: another shard refused the query). The search stops a little
      // before the deadline, so that its DEADLINE_EXCEEDED reaches the caller as this server's answer: a slow query,
      // not a server that does not answer.
      Context context = Context.current();
      Deadline deadline = context.getDeadline();
      long stopAt = Long.MAX_VALUE;
      if (deadline != null) {
        long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
        stopAt = System.nanoTime() + remaining - Math.min(ANSWER_MARGIN_NANOS, Math.max(0, remaining) / 10);
      }
      return ShardSearch.run(ShardSearcher.until(searcher, stopAt, context::isCancelled), query, reserved);
    } finally {
      searchers.release(searcher);
    }
  }

  private FetchResponse fetch(FetchRequest request, MemoryBudget.Reservation reserved) throws IOException {
    List<RowKey> keys = new ArrayList<>(request.getIdsCount());
    for (RowId id : request.getIdsList()) {
      keys.add(new RowKey(id.getTenantId(), id.getRowId()));
    }
    FetchResponse.Builder rows = FetchResponse.newBuilder();
    for (byte[] row : shards.apply(request.getShard()).fetch(keys)) {
      // The row read, then its copy in the answer.
      reserved.reserve(2L * row.length, String.format("%,d fetched rows", rows.getRowsCount() + 1));
      rows.addRows(com.google.protobuf.ByteString.copyFrom(row));
    }
    return rows.build();
  }

  @Override
  public void refreshShards(RefreshShardsRequest request, StreamObserver<RefreshShardsResponse> response) {
    answer(response, () -> RefreshShardsResponse.newBuilder()
        .addAllResults(inParallel(request.getShardsList(), shard -> {
          ShardRefreshResult.Builder result = ShardRefreshResult.newBuilder().setShard(shard);
          ShardError error = perShard(() -> {
            shards.apply(shard).refresh();
            return null;
          });
          return (error == null ? result : result.setError(error)).build();
        }))
        .build());
  }

  @Override
  public void stats(StatsRequest request, StreamObserver<ShardStats> response) {
    answer(response, () -> shards.apply(request.getShard()).stats());
  }

  private static <T> void answer(StreamObserver<T> response, Call<T> call) {
    T result;
    try {
      result = call.run();
    } catch (Exception e) {
      Status status = status(e);
      response.onError(status.asRuntimeException());
      return;
    }
    response.onNext(result);
    response.onCompleted();
  }

  /** Runs one shard's part of a multi-shard call; its failure, if any, as the status a single-shard call answers. */
  private static ShardError perShard(Call<?> call) {
    try {
      call.run();
      return null;
    } catch (Exception e) {
      Status status = status(e);
      return ShardError.newBuilder().setCode(status.getCode().name())
          .setMessage(status.getDescription() == null ? "" : status.getDescription()).build();
    }
  }

  /** Whether {@code e} or one of its causes is the operating system's "no space left on device". */
  private static boolean diskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException && String.valueOf(t.getMessage()).contains("No space left on device")) {
        return true;
      }
    }
    return false;
  }

  private static Status status(Exception e) {
    if (e instanceof MemoryBudget.Exceeded exceeded) {
      // Too large a request is the caller's to narrow (INVALID_ARGUMENT: a 400); a busy server, a retry's later.
      return (exceeded.perRequest() ? Status.INVALID_ARGUMENT : Status.RESOURCE_EXHAUSTED)
          .withDescription("shard server memory: " + e.getMessage());
    }
    if (diskFull(e)) {
      return Status.RESOURCE_EXHAUSTED.withDescription("the shard server's disk is full: " + e.getMessage());
    }
    if (e instanceof AlreadyClosedException) {
      return Status.UNAVAILABLE.withDescription("the shard's index writer closed (" + e.getMessage() + "); the "
          + "server reopens the shard from its commit and translog");
    }
    if (e instanceof UnknownShardException) {
      return Status.NOT_FOUND.withDescription(e.getMessage());
    }
    if (e instanceof ReplicaShard.ReplicaUnavailableException || e instanceof Shard.CopiesUnavailableException) {
      return Status.UNAVAILABLE.withDescription(e.getMessage());
    }
    if (e instanceof ShardSearcher.SearchTimeoutException) {
      return Status.DEADLINE_EXCEEDED.withDescription(e.getMessage());
    }
    if (e instanceof IllegalStateException) {
      return Status.FAILED_PRECONDITION.withDescription(e.getMessage());
    }
    if (e instanceof IllegalArgumentException) {
      return Status.INVALID_ARGUMENT.withDescription(e.getMessage());
    }
    LOG.error("shard call failed", e);
    return Status.INTERNAL.withDescription(e.toString());
  }
}
