package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard's buffer of changes for normal or hot tenants, the lane's one request slot, and its spill. The buffer is
 * filled and taken on the task thread; the batch in flight is released from the write client's callback. A lane that
 * took over a tenant's changes from its shard's other lane ({@link #takeTenant}) sends nothing until the other lane's
 * request in flight then is done ({@link #after}), so a row's changes reach the shard in order across the switch.
 *
 * <p>Spill: changes that arrive while the lane is at its bound and its shard stalled go to disk ({@link LaneSpill}),
 * and so does every later one until the spill is read back into the buffer ({@link #refill}), so the order holds.
 * While changes of a partition are spilled, a token at the first of them holds the partition's written offset.
 */
final class Lane {
  private static final Logger LOG = LoggerFactory.getLogger(Lane.class);

  final int shard;
  final boolean hot;
  private final Semaphore inFlight = new Semaphore(1);
  private List<RoutedChange> buffer = new ArrayList<>();
  private List<WrittenOffsets.Pending> tokens = new ArrayList<>();
  private long bufferedBytes;
  private long firstBufferedAt;
  /** The buffer holds changes left from a batch cut at its size: they have waited already. */
  private boolean backlog;
  /** The changes of the request in flight, until it is acknowledged (or failed for good). */
  private volatile List<RoutedChange> sending = List.of();
  /** Completes when the request in flight is done; done when none is. */
  private CompletableFuture<Void> requestDone = CompletableFuture.completedFuture(null);
  /** What must be done before this lane sends again: the other lane's request that held a switched tenant's changes. */
  private CompletableFuture<?> gate = CompletableFuture.completedFuture(null);
  /** When the request in flight was sent (System.nanoTime). */
  private volatile long sentAt;
  /** Made at the lane's first spill. */
  private LaneSpill spill;
  /** Per partition with spilled changes, the token at the first of them. */
  private final Map<TopicPartition, WrittenOffsets.Pending> holds = new HashMap<>();
  private long spillingSince;
  private long spilledSince;

  Lane(int shard, boolean hot) {
    this.shard = shard;
    this.hot = hot;
  }

  /** A batch taken from the lane: its changes, and their tokens to acknowledge once the shard has. */
  record Batch(List<RoutedChange> changes, List<WrittenOffsets.Pending> tokens) {}

  /** Buffers the change with its token; returns how many changes the lane now buffers. */
  int add(RoutedChange change, WrittenOffsets.Pending token, LongSupplier clock) {
    if (buffer.isEmpty()) {
      firstBufferedAt = clock.getAsLong();
    }
    buffer.add(change);
    tokens.add(token);
    bufferedBytes += change.bytes().length;
    return buffer.size();
  }

  /** The encoded size of the changes the lane buffers. */
  long bufferedBytes() {
    return bufferedBytes;
  }

  boolean hasBuffered() {
    return !buffer.isEmpty();
  }

  /** Whether the lane's oldest buffered change has waited {@code lingerMs} by {@code now}. */
  boolean lingered(long now, long lingerMs) {
    return !buffer.isEmpty() && (backlog || now - firstBufferedAt >= lingerMs);
  }

  /**
   * Takes the buffer's oldest changes, at most {@code maxChanges} and no more than {@code maxBytes} (but at least one),
   * as one batch and the request slot with it, to be given back by {@link #release}; waits for the slot until
   * {@code waitUntil} (System.nanoTime; {@link Long#MAX_VALUE} waits as long as it takes). Null if the lane buffers
   * nothing or the slot is still taken.
   */
  Batch take(long waitUntil, int maxChanges, long maxBytes) throws InterruptedException {
    if (buffer.isEmpty()) {
      return null;
    }
    if (!gate.isDone()) {
      try {
        if (waitUntil == Long.MAX_VALUE) {
          gate.get();
        } else {
          gate.get(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
      } catch (ExecutionException e) {
        return null; // the other lane's request failed for good: nothing may overtake it, and the sink fails
      } catch (TimeoutException e) {
        return null;
      }
    }
    if (gate.isCompletedExceptionally()) {
      return null;
    }
    if (waitUntil == Long.MAX_VALUE) {
      inFlight.acquire();
    } else if (!inFlight.tryAcquire(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      return null;
    }
    int count = 0;
    long bytes = 0;
    while (count < buffer.size() && count < maxChanges) {
      long size = buffer.get(count).bytes().length;
      if (count > 0 && bytes + size > maxBytes) {
        break;
      }
      bytes += size;
      count++;
    }
    Batch batch;
    if (count == buffer.size()) {
      batch = new Batch(buffer, tokens);
      buffer = new ArrayList<>();
      tokens = new ArrayList<>();
      backlog = false;
    } else {
      // A backlog (the shard was slow) or big changes go out in batches of the usual size, oldest first.
      batch = new Batch(new ArrayList<>(buffer.subList(0, count)), new ArrayList<>(tokens.subList(0, count)));
      buffer = new ArrayList<>(buffer.subList(count, buffer.size()));
      tokens = new ArrayList<>(tokens.subList(count, tokens.size()));
      backlog = true; // the rest has waited already: send it as soon as the slot is free
    }
    bufferedBytes -= bytes;
    sentAt = System.nanoTime();
    sending = batch.changes();
    requestDone = new CompletableFuture<>();
    return batch;
  }

  /** Frees the request slot once the batch taken with it is acknowledged or {@code failed} for good. */
  void release(boolean failed) {
    CompletableFuture<Void> done = requestDone;
    sending = List.of();
    inFlight.release();
    if (failed) {
      done.completeExceptionally(new IllegalStateException("shard " + shard + "'s request failed for good"));
    } else {
      done.complete(null);
    }
  }

  /** Whether the lane has nothing buffered, spilled or in flight. Task thread only. */
  boolean idle() {
    return buffer.isEmpty() && sending.isEmpty() && !spilling();
  }

  /** Whether the buffer is at its bound: {@code maxChanges} changes or {@code maxBytes}. */
  boolean full(int maxChanges, long maxBytes) {
    return buffer.size() >= maxChanges || bufferedBytes >= maxBytes;
  }

  /** When the request in flight was sent (System.nanoTime), if one is. */
  long sentAt() {
    return sentAt;
  }

  /** Whether changes of the lane wait on disk: every new one goes there too, behind them. */
  boolean spilling() {
    return spill != null && !spill.isEmpty();
  }

  /** How many changes wait on disk. Any thread (metrics). */
  long spilled() {
    LaneSpill s = spill;
    return s == null ? 0 : s.count();
  }

  /** How many changes wait in the lane: in flight, buffered and spilled. Any thread (metrics), approximate. */
  long behind() {
    return sending.size() + buffer.size() + spilled();
  }

  /** Appends the change to the lane's spill, holding its partition's written offset at the first spilled. */
  void spill(RoutedChange change, WrittenOffsets written, SpillFiles files) throws IOException {
    if (spill == null) {
      spill = new LaneSpill(files, "shard-" + shard + (hot ? "-hot" : ""));
    }
    if (spill.isEmpty()) {
      spillingSince = System.nanoTime();
      spilledSince = 0;
      LOG.warn("shard {} is behind: its {} lane is full ({} changes) and its request unanswered; its next changes"
          + " wait on disk while the other shards go on", shard, hot ? "hot" : "normal", buffer.size());
    }
    TopicPartition partition = new TopicPartition(change.topic, change.partition);
    if (holds.containsKey(partition)) {
      written.spilled(change);
    } else {
      holds.put(partition, written.track(change));
    }
    spill.append(change);
    spilledSince++;
  }

  /**
   * Reads spilled changes back into the buffer, oldest first, until it holds {@code maxChanges} or {@code maxBytes};
   * once the spill is empty, its holds on the written offsets are released.
   */
  void refill(WrittenOffsets written, int maxChanges, long maxBytes, LongSupplier clock) throws IOException {
    if (!spilling()) {
      return;
    }
    while (!spill.isEmpty() && !full(maxChanges, maxBytes)) {
      RoutedChange change = spill.poll();
      add(change, written.track(change), clock);
    }
    backlog = true;
    if (spill.isEmpty()) {
      holds.values().forEach(WrittenOffsets.Pending::acknowledge);
      holds.clear();
      LOG.info("shard {} caught up: its {} lane read back the {} changes it spilled over {} s", shard,
          hot ? "hot" : "normal", spilledSince, (System.nanoTime() - spillingSince) / 1_000_000_000);
    }
  }

  /** The unread parts of the spill's files, for a checkpoint. */
  List<LaneSpill.Range> spillRanges() throws IOException {
    return spill == null ? List.of() : spill.ranges();
  }

  /** Closes the spill's files, leaving them for a restore. */
  void close() {
    if (spill != null) {
      spill.close();
    }
  }

  /**
   * Moves the tenant's buffered changes (with their tokens, in order) from {@code other} to the end of this lane's
   * buffer, and holds this lane's next send until {@code other}'s request in flight now, which may hold earlier
   * changes of the tenant, is done. Task thread only.
   */
  void takeTenant(long tenant, Lane other, LongSupplier clock) {
    List<RoutedChange> kept = new ArrayList<>(other.buffer.size());
    List<WrittenOffsets.Pending> keptTokens = new ArrayList<>(other.tokens.size());
    for (int i = 0; i < other.buffer.size(); i++) {
      RoutedChange change = other.buffer.get(i);
      if (change.change.getTenantId() == tenant) {
        other.bufferedBytes -= change.bytes().length;
        add(change, other.tokens.get(i), clock);
      } else {
        kept.add(change);
        keptTokens.add(other.tokens.get(i));
      }
    }
    other.buffer = kept;
    other.tokens = keptTokens;
    after(other.requestDone);
  }

  private void after(CompletableFuture<?> request) {
    if (!request.isDone()) {
      gate = gate.isDone() ? request : CompletableFuture.allOf(gate, request);
    }
  }

  /** The changes of the request in flight. */
  List<RoutedChange> sending() {
    return sending;
  }

  /** The changes buffered, oldest first. Task thread only. */
  List<RoutedChange> buffered() {
    return buffer;
  }

  /** Waits until the lane has no request in flight. */
  void awaitIdle() throws InterruptedException {
    inFlight.acquire();
    inFlight.release();
  }
}
