package io.evenkeel.ingest.sink;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.client.ClusterClient;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Buffers changes per shard in two lanes, normal and hot, and sends a lane's buffer as one batch when it is full,
 * when it has waited {@code sinkLingerMs}, or at a checkpoint.
 *
 * <p>Order: each lane has one request in flight at a time (retries included), and all changes of a row take the same
 * lane (the router decides "hot" by the row's creation time), so a shard receives a row's changes in order: a partial
 * update never overtakes the insert it applies to.
 *
 * <p>Backpressure: a normal lane whose request is still in flight blocks {@link #write} when its buffer is full, which
 * backpressures Flink instead of buffering without bound. Hotspot isolation: a hot tenant's lane keeps buffering (up
 * to {@code sinkHotBuffer} changes) while its request is in flight, so a hot tenant's backlog does not stall the other
 * tenants of the same shard; only a full hot buffer blocks.
 */
final class ShardSinkWriter implements SinkWriter<RoutedChange> {
  private static final Logger LOG = LoggerFactory.getLogger(ShardSinkWriter.class);
  private static final int MAX_ATTEMPTS = 5;

  private final IngestSettings settings;
  private final ProcessingTimeService time;
  private final String sender;
  private final SingleObjectCodec<ShardWriteBatch> batches;
  private final ClusterClient cluster = new ClusterClient();
  private final Lane[][] lanes;
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "shard-sink-retries");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Counter sentChanges;
  private final Counter sentBatches;
  private final AtomicLong lastAckDelayMs = new AtomicLong();
  private long batchSequence;

  /** One shard's buffer and in-flight budget for normal or hot tenants. */
  private final class Lane {
    final int shard;
    final boolean hot;
    final ShardServiceGrpc.ShardServiceFutureStub stub;
    final Semaphore inFlight = new Semaphore(1);
    final Counter changes;
    final Counter serverChanges;
    List<TransactionLogChange> buffer = new ArrayList<>();
    long firstBufferedAt;

    Lane(int shard, boolean hot, ShardServiceGrpc.ShardServiceFutureStub stub, Counter serverChanges,
        MetricGroup metrics) {
      this.shard = shard;
      this.hot = hot;
      this.stub = stub;
      this.serverChanges = serverChanges;
      this.changes = metrics.addGroup("shard", Integer.toString(shard))
          .counter(hot ? "hotChangesSent" : "changesSent", new ThreadSafeSimpleCounter());
    }
  }

  ShardSinkWriter(IngestSettings settings, WriterInitContext context) {
    AvroTrust.install();
    this.settings = settings;
    this.time = context.getProcessingTimeService();
    this.sender = "ingest-" + context.getTaskInfo().getIndexOfThisSubtask() + "-" + UUID.randomUUID();
    this.batches = SingleObjectCodec.of(ShardWriteBatch.class);
    MetricGroup metrics = context.metricGroup();
    this.sentChanges = metrics.counter("changesSent", new ThreadSafeSimpleCounter());
    this.sentBatches = metrics.counter("batchesSent", new ThreadSafeSimpleCounter());
    metrics.gauge("lastAckDelayMs", lastAckDelayMs::get);
    ShardPlacement placement = ShardPlacement.fixed(settings.numShards, settings.placement);
    this.lanes = new Lane[settings.numShards][2];
    Map<ShardAddress, Counter> perServer = new HashMap<>();
    for (int shard = 0; shard < settings.numShards; shard++) {
      ShardAddress address = placement.primaryOf(shard).orElseThrow(() -> new IllegalArgumentException(
          "no shard server is placed for a shard in " + settings.placement));
      ShardServiceGrpc.ShardServiceFutureStub stub = cluster.futureStub(address);
      Counter serverChanges = perServer.computeIfAbsent(address, a -> metrics.addGroup("server", a.toString())
          .counter("changesSent", new ThreadSafeSimpleCounter()));
      lanes[shard][0] = new Lane(shard, false, stub, serverChanges, metrics);
      lanes[shard][1] = new Lane(shard, true, stub, serverChanges, metrics);
    }
    scheduleLinger();
  }

  @Override
  public void write(RoutedChange routed, Context context) throws IOException, InterruptedException {
    checkFailure();
    Lane lane = lanes[routed.shard][routed.hot ? 1 : 0];
    if (lane.buffer.isEmpty()) {
      lane.firstBufferedAt = time.getCurrentProcessingTime();
    }
    lane.buffer.add(routed.change);
    if (lane.buffer.size() >= settings.sinkBatchSize) {
      // The hot lane sends only when it can without waiting, unless its buffer is full.
      boolean mayWait = !lane.hot || lane.buffer.size() >= settings.sinkHotBuffer;
      send(lane, mayWait);
    }
  }

  /** At a checkpoint (and at the end): sends everything buffered and waits for every acknowledgement. */
  @Override
  public void flush(boolean endOfInput) throws IOException, InterruptedException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        send(lane, true);
      }
    }
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        lane.inFlight.acquire();
        lane.inFlight.release();
      }
    }
    checkFailure();
  }

  private void scheduleLinger() {
    time.registerTimer(time.getCurrentProcessingTime() + settings.sinkLingerMs, now -> {
      if (failure.get() == null) {
        for (Lane[] shardLanes : lanes) {
          for (Lane lane : shardLanes) {
            if (!lane.buffer.isEmpty() && now - lane.firstBufferedAt >= settings.sinkLingerMs) {
              send(lane, false);
            }
          }
        }
      }
      scheduleLinger();
    });
  }

  /** Sends the lane's buffer as one batch; without {@code mayWait}, only if a request slot is free now. */
  private void send(Lane lane, boolean mayWait) throws InterruptedException {
    if (lane.buffer.isEmpty()) {
      return;
    }
    if (mayWait) {
      lane.inFlight.acquire();
    } else if (!lane.inFlight.tryAcquire()) {
      return;
    }
    List<TransactionLogChange> changes = lane.buffer;
    lane.buffer = new ArrayList<>();
    ShardWriteBatch batch = ShardWriteBatch.newBuilder()
        .setShard(lane.shard)
        .setSender(sender)
        .setBatchSequence(batchSequence++)
        .setSentTime(System.currentTimeMillis())
        .setChanges(changes)
        .build();
    WriteRequest request = WriteRequest.newBuilder()
        .setShard(lane.shard)
        .setBatch(ByteString.copyFrom(batches.encode(batch)))
        .build();
    attempt(lane, request, changes, 1);
  }

  private void attempt(Lane lane, WriteRequest request, List<TransactionLogChange> changes, int attempt) {
    Futures.addCallback(
        lane.stub.withDeadlineAfter(settings.sinkRequestTimeoutMs, TimeUnit.MILLISECONDS).write(request),
        new FutureCallback<WriteResponse>() {
          @Override
          public void onSuccess(WriteResponse response) {
            long now = System.currentTimeMillis();
            lastAckDelayMs.set(now - changes.get(changes.size() - 1).getModifiedTime());
            lane.changes.inc(changes.size());
            lane.serverChanges.inc(changes.size());
            sentChanges.inc(changes.size());
            sentBatches.inc();
            lane.inFlight.release();
          }

          @Override
          public void onFailure(Throwable t) {
            Status.Code code = t instanceof StatusRuntimeException e ? e.getStatus().getCode() : Status.Code.UNKNOWN;
            boolean retryable = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                || code == Status.Code.RESOURCE_EXHAUSTED;
            if (retryable && attempt < MAX_ATTEMPTS) {
              // A resent batch is harmless: the shard ignores changes it already holds.
              long backoff = 100L << attempt;
              LOG.warn("write of {} changes to shard {} failed ({}); retry {} in {} ms", changes.size(), lane.shard,
                  code, attempt, backoff);
              retries.schedule(() -> attempt(lane, request, changes, attempt + 1), backoff, TimeUnit.MILLISECONDS);
              return;
            }
            failure.compareAndSet(null, new IOException(
                "write of " + changes.size() + " changes to shard " + lane.shard + " failed after " + attempt
                    + " attempts: " + t, t));
            lane.inFlight.release();
          }
        },
        MoreExecutors.directExecutor());
  }

  private void checkFailure() throws IOException {
    Throwable t = failure.get();
    if (t != null) {
      throw t instanceof IOException io ? io : new IOException(t);
    }
  }

  @Override
  public void close() throws Exception {
    retries.shutdownNow();
    cluster.close();
  }
}
