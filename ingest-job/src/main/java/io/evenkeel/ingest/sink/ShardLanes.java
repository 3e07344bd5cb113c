package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Batching into per-shard lanes: buffers changes per shard in two lanes, normal and hot, and hands a lane's buffer to
 * the write client as one batch when it is full, when it has waited {@code lingerMs}, or at a flush.
 *
 * <p>Order: each lane has one request in flight at a time (retries included), and all changes of a row take the same
 * lane (the router decides "hot" by the row's creation time), so a shard receives a row's changes in order: a partial
 * update never overtakes the insert it applies to.
 *
 * <p>Backpressure: a normal lane whose request is still in flight blocks {@link #add} when its buffer is full, which
 * backpressures Flink instead of buffering without bound. Hotspot isolation: a hot tenant's lane keeps buffering (up
 * to {@code hotBuffer} changes) while its request is in flight, so a hot tenant's backlog does not stall the other
 * tenants of the same shard; only a full hot buffer blocks.
 */
final class ShardLanes {
  private final Lane[][] lanes;
  private final int batchSize;
  private final int hotBuffer;
  private final long lingerMs;
  private final LongSupplier clock;
  private final ShardWriteClient client;
  private final SinkMetrics metrics;
  private final WrittenOffsets written = new WrittenOffsets();

  ShardLanes(int numShards, int batchSize, int hotBuffer, long lingerMs, LongSupplier clock, ShardWriteClient client,
      SinkMetrics metrics) {
    this.batchSize = batchSize;
    this.hotBuffer = hotBuffer;
    this.lingerMs = lingerMs;
    this.clock = clock;
    this.client = client;
    this.metrics = metrics;
    this.lanes = new Lane[numShards][2];
    for (int shard = 0; shard < numShards; shard++) {
      lanes[shard][0] = new Lane(shard, false);
      lanes[shard][1] = new Lane(shard, true);
    }
  }

  /** Buffers the change in its shard's lane, and sends the lane's batch once it is full. */
  void add(RoutedChange routed) throws InterruptedException {
    Lane lane = lanes[routed.shard][routed.hot ? 1 : 0];
    int buffered = lane.add(routed, written.track(routed), clock);
    if (buffered >= batchSize) {
      // The hot lane sends only when it can without waiting, unless its buffer is full.
      boolean mayWait = !lane.hot || buffered >= hotBuffer;
      send(lane, mayWait);
    }
  }

  /** Sends each lane whose oldest change has waited {@code lingerMs}, if its request slot is free now. */
  void sendLingering(long now) throws InterruptedException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        if (lane.lingered(now, lingerMs)) {
          send(lane, false);
        }
      }
    }
  }

  /** The partitions whose written offset moved since the last call: see {@link WrittenOffsets#advance}. */
  Map<TopicPartition, Long> advanceWritten() {
    return written.advance();
  }

  /** Sends everything buffered and waits until every lane's requests are acknowledged or failed for good. */
  void flush() throws InterruptedException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        send(lane, true);
      }
    }
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        lane.awaitIdle();
      }
    }
  }

  /** Sends the lane's buffer as one batch; without {@code mayWait}, only if its request slot is free now. */
  private void send(Lane lane, boolean mayWait) throws InterruptedException {
    Lane.Batch batch = lane.take(mayWait);
    if (batch == null) {
      return;
    }
    client.write(lane.shard, batch.changes()).whenComplete((acknowledged, failure) -> {
      if (failure == null) {
        metrics.acknowledged(lane.shard, lane.hot, batch.changes());
        batch.tokens().forEach(WrittenOffsets.Pending::acknowledge);
      }
      lane.release();
    });
  }
}
