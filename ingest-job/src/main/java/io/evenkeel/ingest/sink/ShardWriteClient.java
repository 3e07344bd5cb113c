package io.evenkeel.ingest.sink;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.UnsafeByteOperations;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.router.client.ClientTls;
import io.evenkeel.router.client.ClusterClient;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one batch at a time to a shard's primary over gRPC, asking the placement for the primary at every attempt.
 * A write that fails with UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION (the server holds
 * no primary of the shard: a failover moved it) or NOT_FOUND (the copy is opening there) is retried after 100 ms
 * {@code << attempt} (at most 2 s) for as long as it takes: the shard's lane waits, the others go on. The first write
 * that fails for good (the shard refused it) is kept, and {@link #checkFailure} throws it.
 */
final class ShardWriteClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardWriteClient.class);
  private static final long MAX_BACKOFF_MS = 2_000;

  private final ClusterClient cluster;
  private final ShardPlacement placement;
  private final String sender;
  private final long requestTimeoutMs;
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "shard-sink-retries");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicReference<IOException> failure = new AtomicReference<>();
  private long batchSequence;

  /**
   * @param placement where each shard's primary is, asked again at every attempt (a primary moves with a failover)
   * @param sender names this writer in every batch; with the batch sequence it identifies a batch
   */
  ShardWriteClient(ShardPlacement placement, String sender, long requestTimeoutMs, ClientTls tls) {
    this.cluster = new ClusterClient(tls);
    this.placement = placement;
    cluster.connect(placement.primaries().values());
    this.sender = sender;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * Sends the changes to the shard as one batch. The future completes once the shard acknowledged the batch, or
   * exceptionally once the write failed for good.
   */
  CompletableFuture<Void> write(int shard, List<RoutedChange> changes) {
    ShardWriteBatch batch = ShardWriteBatch.newBuilder()
        .setShard(shard)
        .setSender(sender)
        .setBatchSequence(batchSequence++)
        .setSentTime(System.currentTimeMillis())
        .setChanges(List.of())
        .build();
    WriteRequest request = WriteRequest.newBuilder()
        .setShard(shard)
        .setBatch(UnsafeByteOperations.unsafeWrap(WriteBatchEncoder.encode(batch, changes)))
        .build();
    CompletableFuture<Void> acknowledged = new CompletableFuture<>();
    attempt(shard, request, changes.size(), acknowledged, 1);
    return acknowledged;
  }

  private void attempt(int shard, WriteRequest request, int size, CompletableFuture<Void> acknowledged,
      int attempt) {
    Optional<ShardAddress> primary = placement.primaryOf(shard);
    ListenableFuture<WriteResponse> call = primary.isPresent()
        ? cluster.futureStub(primary.get()).withDeadlineAfter(requestTimeoutMs, TimeUnit.MILLISECONDS).write(request)
        : Futures.immediateFailedFuture(Status.UNAVAILABLE.withDescription("shard " + shard
            + " has no live primary (a failover under way?)").asRuntimeException());
    Futures.addCallback(
        call,
        new FutureCallback<WriteResponse>() {
          @Override
          public void onSuccess(WriteResponse response) {
            acknowledged.complete(null);
          }

          @Override
          public void onFailure(Throwable t) {
            Status.Code code = t instanceof StatusRuntimeException e ? e.getStatus().getCode() : Status.Code.UNKNOWN;
            // FAILED_PRECONDITION: the server holds no primary of the shard (any more): the placement moves on.
            // NOT_FOUND: the server holds no copy of it (yet: it is opening or being promoted there).
            boolean retryable = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                || code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.FAILED_PRECONDITION
                || code == Status.Code.NOT_FOUND;
            // Retried for as long as it takes: a slow, paused or failing-over shard delays only its own lane.
            if (retryable) {
              // A resent batch is harmless: the shard ignores changes it already holds.
              long backoff = Math.min(MAX_BACKOFF_MS, 100L << Math.min(attempt, 10));
              LOG.warn("write of {} changes to shard {} failed ({}); retry {} in {} ms", size, shard, code, attempt,
                  backoff);
              retries.schedule(() -> attempt(shard, request, size, acknowledged, attempt + 1), backoff,
                  TimeUnit.MILLISECONDS);
              return;
            }
            IOException failed = new IOException(
                "write of " + size + " changes to shard " + shard + " failed after " + attempt + " attempts: " + t, t);
            failure.compareAndSet(null, failed);
            acknowledged.completeExceptionally(failed);
          }
        },
        MoreExecutors.directExecutor());
  }

  /** Whether a write has failed for good. */
  boolean failed() {
    return failure.get() != null;
  }

  /** Throws the first write that failed for good, if any. */
  void checkFailure() throws IOException {
    IOException failed = failure.get();
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public void close() {
    retries.shutdownNow();
    cluster.close();
  }
}
