package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Batching into per-shard lanes: buffers changes per shard in two lanes, normal and hot, and hands a lane's buffer to
 * the write client as one batch when it is full (in changes or bytes), when it has waited {@code lingerMs}, or at a
 * flush. Changes a shard refuses go to the dead-letter topic ({@link RefusedChanges}) and count as written once
 * there.
 *
 * <p>Lanes: a tenant's changes take the hot lane while the monitor's current view ({@code hotTenants}) holds it hot,
 * so a hot tenant's backlog on a shard does not hold the small tenants' changes to that shard behind it. A tenant
 * that cools goes back to the normal lane once the shard's hot lane has nothing buffered or in flight.
 *
 * <p>Order: each lane has one request in flight at a time (retries included), and a tenant's changes to a shard are
 * in one lane at a time: when the view moves a tenant to the hot lane, its buffered changes move with it and the
 * hot lane waits for the normal lane's request in flight. So a shard receives a row's changes in order: a partial
 * update never overtakes the insert it applies to. After a write failed for good nothing more is sent.
 *
 * <p>Isolation and backpressure: a lane keeps buffering while its request is in flight (a normal lane up to {@code
 * laneBuffer} changes, a hot tenant's lane up to {@code hotBuffer}, either up to {@code laneBufferBytes}), so one
 * slow shard, or one hot tenant's backlog, delays only its own lane while the task thread goes on feeding every
 * other. A lane at its bound makes {@link #add} wait for its request while that request is younger than {@code
 * spillAfterMs}, which backpressures Flink when the shards are merely busy; past that its shard is stalled, and the
 * lane's changes wait on disk ({@link LaneSpill}) until it answers, so a stalled or half-dead server delays only its
 * own rows. Only when the spill holds {@code spillBytes} does {@link #add} wait for the stalled shard. A checkpoint
 * does not wait for the lanes: their unacknowledged changes, and the spill files' unread parts, are the sink's state
 * ({@link #unacknowledged}) and are sent again after a restore.
 */
final class ShardLanes {
  private final Lane[][] lanes;
  /** Per shard, the tenants whose changes to it take the hot lane now. Task thread only. */
  private final List<Set<Long>> inHotLane;
  private final LongPredicate hotTenants;
  private final Bounds bounds;
  private final long lingerMs;
  private final LongSupplier clock;
  private final ShardWriteClient client;
  private final RefusedChanges refusedChanges;
  private final SinkMetrics metrics;
  /** Null when the lanes do not spill. */
  private final SpillFiles spills;
  private final WrittenOffsets written = new WrittenOffsets();
  private final AtomicReference<IOException> failure = new AtomicReference<>();

  /**
   * How big batches and lanes get: a batch holds at most {@code batchSize} changes and {@code batchBytes} (or one
   * change); a normal lane buffers up to {@code laneBuffer} changes, a hot one up to {@code hotBuffer}, either up to
   * {@code laneBufferBytes}, before {@link #add} waits, or spills once the lane's request has waited {@code
   * spillAfterMs}; the lanes spill up to {@code spillBytes} in all (0: they never spill).
   */
  record Bounds(int batchSize, long batchBytes, int laneBuffer, int hotBuffer, long laneBufferBytes,
      long spillAfterMs, long spillBytes) {
    /** Bounds without a spill: a lane at its bound waits. */
    Bounds(int batchSize, long batchBytes, int laneBuffer, int hotBuffer, long laneBufferBytes) {
      this(batchSize, batchBytes, laneBuffer, hotBuffer, laneBufferBytes, 0, 0);
    }

    int buffer(Lane lane) {
      return lane.hot ? hotBuffer : laneBuffer;
    }
  }

  /** @param spills where lanes spill; null when {@code bounds} has no spill */
  ShardLanes(int numShards, Bounds bounds, long lingerMs, LongSupplier clock, ShardWriteClient client,
      RefusedChanges refusedChanges, SinkMetrics metrics, LongPredicate hotTenants, SpillFiles spills) {
    this.spills = bounds.spillBytes() > 0 ? spills : null;
    this.hotTenants = hotTenants;
    this.bounds = bounds;
    this.lingerMs = lingerMs;
    this.clock = clock;
    this.client = client;
    this.refusedChanges = refusedChanges;
    this.metrics = metrics;
    this.lanes = new Lane[numShards][2];
    this.inHotLane = new ArrayList<>(numShards);
    for (int shard = 0; shard < numShards; shard++) {
      inHotLane.add(new HashSet<>());
      lanes[shard][0] = new Lane(shard, false);
      lanes[shard][1] = new Lane(shard, true);
      Lane[] shardLanes = lanes[shard];
      metrics.behind(shard, () -> shardLanes[0].behind() + shardLanes[1].behind(),
          () -> shardLanes[0].spilled() + shardLanes[1].spilled());
    }
  }

  /** Buffers (or spills) the change in its shard's lane, and sends the lane's batch once it is full. */
  void add(RoutedChange routed) throws InterruptedException, IOException {
    long tenant = routed.change.getTenantId();
    boolean hot = hotTenants.test(tenant);
    Set<Long> inHot = inHotLane.get(routed.shard);
    boolean wasHot = !inHot.isEmpty() && inHot.contains(tenant);
    Lane[] shardLanes = lanes[routed.shard];
    if (hot && !wasHot && shardLanes[0].spilling()) {
      hot = false; // its changes on disk would be overtaken: it takes the hot lane once the spill is read back
    } else if (hot && !wasHot) {
      inHot.add(tenant);
      shardLanes[1].takeTenant(tenant, shardLanes[0], clock);
    } else if (!hot && wasHot) {
      if (shardLanes[1].idle()) {
        inHot.remove(tenant);
      } else {
        // Its backlog stays isolated: moving it would put the normal lane's tenants behind it.
        hot = true;
      }
    }
    Lane lane = lanes[routed.shard][hot ? 1 : 0];
    if (spills != null && (lane.spilling() || (full(lane) && !madeRoom(lane)))) {
      lane.spill(routed, written, spills);
      while (spills.bytes() > bounds.spillBytes() && lane.spilling() && !failed()) {
        send(lane, Long.MAX_VALUE); // the spills are at their bound: wait until this change is off the disk
      }
      send(lane, 0);
      return;
    }
    int buffered = lane.add(routed, written.track(routed), clock);
    long bytes = lane.bufferedBytes();
    if (buffered >= bounds.batchSize() || bytes >= bounds.batchBytes()) {
      // Sent when the lane's slot is free; waited for only when the lane is at its bound and does not spill.
      send(lane, spills == null && full(lane) ? Long.MAX_VALUE : 0);
    }
  }

  private boolean full(Lane lane) {
    return lane.full(bounds.buffer(lane), bounds.laneBufferBytes());
  }

  /**
   * Waits for the full lane's request while it is younger than {@code spillAfterMs}, and sends; whether the lane has
   * room now. A busy shard answers within it, and the wait backpressures the job; a stalled one does not.
   */
  private boolean madeRoom(Lane lane) throws InterruptedException, IOException {
    send(lane, lane.sentAt() + TimeUnit.MILLISECONDS.toNanos(bounds.spillAfterMs()));
    return !full(lane);
  }

  /** Sends each lane whose oldest change has waited {@code lingerMs}, if its request slot is free now. */
  void sendLingering(long now) throws InterruptedException, IOException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        if (lane.lingered(now, lingerMs) || lane.spilling()) {
          send(lane, 0);
        }
      }
    }
  }

  /** The partitions whose written offset moved since the last call: see {@link WrittenOffsets#advance}. */
  Map<TopicPartition, Long> advanceWritten() {
    return written.advance();
  }

  /** Sends what each lane buffers if its slot is free now, without waiting (at a checkpoint). */
  void sendReady() throws InterruptedException, IOException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        send(lane, 0);
      }
    }
  }

  /** Sends everything buffered or spilled and waits until every lane's requests are acknowledged or failed for good. */
  void flush() throws InterruptedException, IOException {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        while ((lane.hasBuffered() || lane.spilling()) && !failed()) {
          send(lane, Long.MAX_VALUE);
        }
      }
    }
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        lane.awaitIdle();
      }
    }
  }

  /**
   * Every change handed to a lane and not acknowledged yet, the sink's checkpointed state: per shard, the requests in
   * flight, then the buffers; then the spills' unread parts. A row's changes keep their order in it: changes a tenant
   * left in one lane's request when it switched lanes are older than all it has in the other lane, and a tenant's
   * spilled changes are newer than all it has in memory (it does not change lanes while its lane spills).
   */
  PendingChanges unacknowledged() throws IOException {
    List<RoutedChange> all = new ArrayList<>();
    List<LaneSpill.Range> spilled = new ArrayList<>();
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        all.addAll(lane.sending());
      }
      for (Lane lane : shardLanes) {
        all.addAll(lane.buffered());
        spilled.addAll(lane.spillRanges());
      }
    }
    return new PendingChanges(all, spilled);
  }

  /** Closes the lanes' spill files, leaving them for a restore. */
  void close() {
    for (Lane[] shardLanes : lanes) {
      for (Lane lane : shardLanes) {
        lane.close();
      }
    }
  }

  /** Whether a write failed for good: the sink stops sending and fails. */
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

  /**
   * Sends the lane's oldest changes as one batch, after reading spilled ones back into its buffer; waits for its
   * request slot until {@code waitUntil} (System.nanoTime; 0 sends only if the slot is free now).
   */
  private void send(Lane lane, long waitUntil) throws InterruptedException, IOException {
    if (failed()) {
      return;
    }
    lane.refill(written, bounds.buffer(lane), bounds.laneBufferBytes(), clock);
    Lane.Batch batch = lane.take(waitUntil, bounds.batchSize(), bounds.batchBytes());
    if (batch == null) {
      return;
    }
    if (failed()) {
      // A request failed for good while this one waited for its slot: later changes must not overtake it. The job
      // fails and restarts from a checkpoint taken before the failure (snapshots fail after it), so nothing is lost.
      lane.release(true);
      return;
    }
    client.write(lane.shard, batch.changes()).thenCompose(refused -> {
      if (refused.isEmpty()) {
        metrics.acknowledged(lane.shard, lane.hot, batch.changes());
        return CompletableFuture.completedFuture(null);
      }
      Set<RoutedChange> refusedSet = Collections.newSetFromMap(new IdentityHashMap<>());
      refused.forEach(r -> refusedSet.add(r.change()));
      metrics.acknowledged(lane.shard, lane.hot,
          batch.changes().stream().filter(change -> !refusedSet.contains(change)).toList());
      metrics.refused(refused.size());
      return refusedChanges.send(lane.shard, refused);
    }).whenComplete((done, t) -> {
      if (t == null) {
        batch.tokens().forEach(WrittenOffsets.Pending::acknowledge);
      } else {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        failure.compareAndSet(null, cause instanceof IOException e ? e
            : new IOException("writing " + batch.changes().size() + " changes to shard " + lane.shard + " failed: "
                + cause, cause));
      }
      lane.release(t != null);
    });
  }
}
