package io.evenkeel.shard.grpc;

import io.evenkeel.cluster.memory.MemoryBudget;
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
import io.evenkeel.shard.search.SegmentAggregates;
import io.evenkeel.shard.search.ShardSearch;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

  /** Refreshes the shards of a call in parallel, a thread each (they wait on I/O, not on each other). */
  private static final ExecutorService CLUSTER_CALLS = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "shard-refreshes");
    thread.setDaemon(true);
    return thread;
  });

  /** How a refusal of a read that found no turn before its deadline begins (the query service answers it 429). */
  public static final String BUSY = "shard server busy: ";

  /** How long a read waited for its turn, in the context of the read. */
  private static final Context.Key<Long> WAITED_FOR_TURN_NANOS = Context.key("evenkeel-waited-for-turn");
  /** A read that waited this long for its turn ran on a server busy with other reads. */
  private static final long CONTENDED_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** How long before the caller's deadline a search stops, at most (a tenth of the time left, if that is less). */
  private static final long ANSWER_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final IntFunction<ShardCopy> shards;
  private final MemoryBudget memory;
  private final FairReads reads;
  private final SegmentAggregates aggregates;

  /** {@code shards} returns the hosted copy of a shard or throws {@link UnknownShardException}. */
  public ShardGrpcService(IntFunction<ShardCopy> shards) {
    this(shards, MemoryBudget.unlimited(), FairReads.forThisMachine(), SegmentAggregates.NONE);
  }

  /**
   * With reads bounded by {@code memory} (each search or fetch call, all its shards together, reserves what it builds
   * and answers, and is refused once over the request's or the server's limit) and run in fair turns by {@code
   * reads} between the parties that asked ({@link ReadPartyInterceptor}); aggregations keep and reuse each segment's
   * groups in {@code aggregates}.
   */
  public ShardGrpcService(IntFunction<ShardCopy> shards, MemoryBudget memory, FairReads reads,
      SegmentAggregates aggregates) {
    this.shards = shards;
    this.memory = memory;
    this.reads = reads;
    this.aggregates = aggregates;
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
      reads.noteWrite();
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
    MemoryBudget.Reservation reserved = memory.open();
    answerWhenDone(response, reserved, inTurn(() -> search(request.getShard(), request.getQuery(), reserved)));
  }

  @Override
  public void fetch(FetchRequest request, StreamObserver<FetchResponse> response) {
    MemoryBudget.Reservation reserved = memory.open();
    answerWhenDone(response, reserved, inTurn(() -> fetch(request, reserved)));
  }

  /**
   * All the call's shards share one reservation: together they make one answer. When they read many stored rows, the
   * rows of all of them are estimated and reserved first, so that a call over its budget is refused before any shard
   * reads a row.
   */
  @Override
  public void searchShards(SearchShardsRequest request, StreamObserver<SearchShardsResponse> response) {
    MemoryBudget.Reservation reserved = memory.open();
    Map<Integer, ShardSearch.RowEstimate> estimates = new HashMap<>();
    try {
      for (int shard : request.getShardsList()) {
        // A shard that cannot be read here says so in its own result below.
        perShard(() -> estimates.put(shard, withSearcher(shard, reserved,
            searcher -> ShardSearch.estimateRows(searcher, request.getQuery()))));
      }
      estimates.values().removeIf(java.util.Objects::isNull);
      if (!estimates.isEmpty()) {
        ShardSearch.RowEstimate.reserve(reserved, List.copyOf(estimates.values()));
      }
    } catch (RuntimeException e) {
      answerWhenDone(response, reserved, CompletableFuture.failedFuture(e));
      return;
    }
    List<CompletableFuture<ShardSearchResult>> shards = new ArrayList<>(request.getShardsCount());
    for (int shard : request.getShardsList()) {
      shards.add(inTurn(() -> {
        ShardSearchResult.Builder result = ShardSearchResult.newBuilder().setShard(shard);
        ShardError error = perShard(() -> result.setResponse(search(shard, request.getQuery(), reserved,
            estimates.get(shard))));
        return (error == null ? result : result.setError(error)).build();
      }));
    }
    answerWhenDone(response, reserved, all(shards).thenApply(results -> SearchShardsResponse.newBuilder()
        .addAllResults(results).build()));
  }

  @Override
  public void fetchShards(FetchShardsRequest request, StreamObserver<FetchShardsResponse> response) {
    MemoryBudget.Reservation reserved = memory.open();
    List<CompletableFuture<ShardFetchResult>> shards = new ArrayList<>(request.getRequestsCount());
    for (FetchRequest one : request.getRequestsList()) {
      shards.add(inTurn(() -> {
        ShardFetchResult.Builder result = ShardFetchResult.newBuilder().setShard(one.getShard());
        ShardError error = perShard(() -> result.setResponse(fetch(one, reserved)));
        return (error == null ? result : result.setError(error)).build();
      }));
    }
    answerWhenDone(response, reserved, all(shards).thenApply(results -> FetchShardsResponse.newBuilder()
        .addAllResults(results).build()));
  }

  /**
   * Runs one shard's read when its party's turn comes ({@link FairReads}), in the call's context: its deadline and
   * cancellation bound the work, and a read whose caller gave up while it waited does not start.
   */
  private <T> CompletableFuture<T> inTurn(Call<T> read) {
    Context context = Context.current();
    long submitted = System.nanoTime();
    return reads.submit(ReadPartyInterceptor.PARTY.get(), context.wrap(() -> {
      if (context.isCancelled()) {
        throw new ShardSearcher.SearchTimeoutException("the caller gave up (its deadline passed or it cancelled) "
            + "before the read's turn came");
      }
      return Context.current().withValue(WAITED_FOR_TURN_NANOS, System.nanoTime() - submitted).call(read::run);
    }), stopAt(context.getDeadline()));
  }

  /**
   * When work for a caller with {@code deadline} must stop so that its answer reaches the caller in time: a little
   * before the deadline (200 ms, or a tenth of the time left); never without one.
   */
  private static long stopAt(Deadline deadline) {
    if (deadline == null) {
      return Long.MAX_VALUE;
    }
    long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
    return System.nanoTime() + remaining - Math.min(ANSWER_MARGIN_NANOS, Math.max(0, remaining) / 10);
  }

  private static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> parts) {
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
        .thenApply(done -> parts.stream().map(CompletableFuture::join).toList());
  }

  /** Answers the call once {@code result} completes (no thread waits for it), then gives the memory back. */
  private static <T> void answerWhenDone(StreamObserver<T> response, MemoryBudget.Reservation reserved,
      CompletableFuture<T> result) {
    result.whenComplete((answer, failure) -> {
      reserved.close();
      if (failure == null) {
        response.onNext(answer);
        response.onCompleted();
        return;
      }
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null
          ? failure.getCause() : failure;
      response.onError(status(cause instanceof Exception e ? e : new RuntimeException(cause))
          .asRuntimeException());
    });
  }

  /**
   * Runs {@code call} on each item, in parallel on the cluster-call pool (not in turns: refreshes are the cluster's
   * work, not a party's); the results in the items' order.
   */
  private static <I, R> List<R> inParallel(List<I> items, Function<I, R> call) {
    List<CompletableFuture<R>> futures = new ArrayList<>(items.size());
    // In the call's context, so that its deadline bounds the work on the pool too.
    Executor pool = Context.currentContextExecutor(CLUSTER_CALLS);
    for (I item : items) {
      futures.add(CompletableFuture.supplyAsync(() -> call.apply(item), pool));
    }
    return futures.stream().map(CompletableFuture::join).toList();
  }

  private SearchResponse search(int shardId, io.evenkeel.schemas.shard.Query query,
      MemoryBudget.Reservation reserved) throws IOException {
    return withSearcher(shardId, reserved, searcher -> ShardSearch.run(searcher, query, reserved, aggregates));
  }

  /** A search whose rows' {@code estimate} (null: none was made) is reserved already. */
  private SearchResponse search(int shardId, io.evenkeel.schemas.shard.Query query,
      MemoryBudget.Reservation reserved, ShardSearch.RowEstimate estimate) throws IOException {
    return withSearcher(shardId, reserved,
        searcher -> ShardSearch.run(searcher, query, reserved, estimate, aggregates));
  }

  private interface SearcherCall<T> {
    T run(IndexSearcher searcher) throws IOException;
  }

  private <T> T withSearcher(int shardId, MemoryBudget.Reservation reserved, SearcherCall<T> call)
      throws IOException {
    ShardCopy shard = shards.apply(shardId);
    var searchers = shard.searchers();
    IndexSearcher searcher = searchers.acquire();
    try {
      // The caller's deadline (the query service sends what is left of its own) bounds the work, not only the wait;
      // so does the caller's cancellation (it gave up: another server refused the query), and a refusal of another
      // shard of this call (the call's answer is that refusal, whatever this shard finds). The search stops a little
      // before the deadline, so that its DEADLINE_EXCEEDED reaches the caller as this server's answer: a slow query,
      // not a server that does not answer.
      Context context = Context.current();
      return call.run(ShardSearcher.until(searcher, stopAt(context.getDeadline()),
          () -> context.isCancelled() || reserved.isRefused()));
    } catch (ShardSearcher.SearchTimeoutException e) {
      Long waited = WAITED_FOR_TURN_NANOS.get();
      boolean waitedForTurn = waited != null && waited >= CONTENDED_WAIT_NANOS;
      boolean writing = reads.writing();
      if (e.pastDeadline() && (waitedForTurn || writing)) {
        // Late because other work came first: the server's answer is that it is busy, to retry; only a read that
        // ran out of time on a server with nothing else to do is a query too slow for its deadline.
        List<String> why = new ArrayList<>(2);
        if (waitedForTurn) {
          why.add("it waited " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms for its turn");
        }
        if (writing) {
          why.add("the server was writing (reads then use at most their party's share of the CPU)");
        }
        throw new FairReads.Busy("the read did not finish before the caller's deadline: " + String.join(" and ", why)
            + "; retry shortly, or narrow the query");
      }
      throw e;
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
      reserved.reserve(2L * row.length, () -> String.format("%,d fetched rows", rows.getRowsCount() + 1));
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
    if (e instanceof FairReads.Busy) {
      return Status.RESOURCE_EXHAUSTED.withDescription(BUSY + e.getMessage());
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
