package io.evenkeel.ingest.sink;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.UnsafeByteOperations;
import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one batch at a time to a shard's primary over gRPC, asking the placement for the primary at every attempt.
 * A write that fails with UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION (the server holds
 * no primary of the shard: a failover moved it) or NOT_FOUND (the copy is opening there) is retried after 100 ms
 * {@code << attempt} (at most 2 s) for as long as it takes: the shard's lane waits, the others go on.
 *
 * <p>A batch the shard refuses (INVALID_ARGUMENT: it logs nothing of a batch with a change it cannot apply) is split
 * in halves, written one after the other, until each refused change stands alone: the write answers those, with the
 * shard's reason, and every other change is written. Any other failure is for good.
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
  private final AtomicLong batchSequence = new AtomicLong();

  /** A change the shard refused, and its reason. */
  record Refused(RoutedChange change, String reason) {}

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
   * Sends the changes to the shard as one batch. The future completes once the shard acknowledged every change but
   * those it answers as refused, or exceptionally once the write failed for good.
   */
  CompletableFuture<List<Refused>> write(int shard, List<RoutedChange> changes) {
    ShardWriteBatch batch = ShardWriteBatch.newBuilder()
        .setShard(shard)
        .setSender(sender)
        .setBatchSequence(batchSequence.getAndIncrement())
        .setSentTime(System.currentTimeMillis())
        .setChanges(List.of())
        .build();
    WriteRequest request = WriteRequest.newBuilder()
        .setShard(shard)
        .setBatch(UnsafeByteOperations.unsafeWrap(WriteBatchEncoder.encode(batch, changes)))
        .build();
    CompletableFuture<List<Refused>> written = new CompletableFuture<>();
    attempt(shard, request, changes, written, 1);
    return written;
  }

  private void attempt(int shard, WriteRequest request, List<RoutedChange> changes,
      CompletableFuture<List<Refused>> written, int attempt) {
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
            written.complete(List.of());
          }

          @Override
          public void onFailure(Throwable t) {
            Status status = t instanceof StatusRuntimeException e ? e.getStatus() : Status.fromThrowable(t);
            Status.Code code = status.getCode();
            // FAILED_PRECONDITION: the server holds no primary of the shard (any more): the placement moves on.
            // NOT_FOUND: the server holds no copy of it (yet: it is opening or being promoted there).
            boolean retryable = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                || code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.FAILED_PRECONDITION
                || code == Status.Code.NOT_FOUND;
            // Retried for as long as it takes: a slow, paused or failing-over shard delays only its own lane.
            if (retryable) {
              // A resent batch is harmless: the shard ignores changes it already holds.
              long backoff = Math.min(MAX_BACKOFF_MS, 100L << Math.min(attempt, 10));
              LOG.warn("write of {} changes to shard {} failed ({}); retry {} in {} ms", changes.size(), shard, code,
                  attempt, backoff);
              retries.schedule(() -> attempt(shard, request, changes, written, attempt + 1), backoff,
                  TimeUnit.MILLISECONDS);
            } else if (code == Status.Code.INVALID_ARGUMENT) {
              refused(shard, changes, String.valueOf(status.getDescription()), written);
            } else {
              written.completeExceptionally(new IOException("write of " + changes.size() + " changes to shard "
                  + shard + " failed after " + attempt + " attempts: " + t, t));
            }
          }
        },
        MoreExecutors.directExecutor());
  }

  /** The shard refused the batch: one change is the refused one; more are split to find which. */
  private void refused(int shard, List<RoutedChange> changes, String reason,
      CompletableFuture<List<Refused>> written) {
    if (changes.size() == 1) {
      LOG.warn("shard {} refused a change of row {} of tenant {}: {}", shard, changes.get(0).change.getRowId(),
          changes.get(0).change.getTenantId(), reason);
      written.complete(List.of(new Refused(changes.get(0), reason)));
      return;
    }
    LOG.warn("shard {} refused a batch of {} changes ({}); splitting it to find the refused ones", shard,
        changes.size(), reason);
    // The halves one after the other: a row's changes keep their order.
    List<RoutedChange> first = changes.subList(0, changes.size() / 2);
    List<RoutedChange> second = changes.subList(changes.size() / 2, changes.size());
    write(shard, first).thenCompose(refusedFirst -> write(shard, second).thenApply(refusedSecond -> {
      List<Refused> all = new ArrayList<>(refusedFirst);
      all.addAll(refusedSecond);
      return all;
    })).whenComplete((all, failure) -> {
      if (failure != null) {
        written.completeExceptionally(failure);
      } else {
        written.complete(all);
      }
    });
  }

  @Override
  public void close() {
    retries.shutdownNow();
    cluster.close();
  }
}
