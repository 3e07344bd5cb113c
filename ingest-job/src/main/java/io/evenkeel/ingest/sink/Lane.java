package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

/**
 * One shard's buffer of changes for normal or hot tenants, and the lane's one request slot. The buffer is filled and
 * taken on the task thread; the batch in flight is released from the write client's callback.
 */
final class Lane {
  final int shard;
  final boolean hot;
  private final Semaphore inFlight = new Semaphore(1);
  private List<RoutedChange> buffer = new ArrayList<>();
  private List<WrittenOffsets.Pending> tokens = new ArrayList<>();
  private long firstBufferedAt;
  /** The changes of the request in flight, until it is acknowledged (or failed for good). */
  private volatile List<RoutedChange> sending = List.of();

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
    return buffer.size();
  }

  boolean hasBuffered() {
    return !buffer.isEmpty();
  }

  /** Whether the lane's oldest buffered change has waited {@code lingerMs} by {@code now}. */
  boolean lingered(long now, long lingerMs) {
    return !buffer.isEmpty() && now - firstBufferedAt >= lingerMs;
  }

  /**
   * Takes the buffer (at most {@code max} changes of it) as one batch and the request slot with it, to be given back
   * by {@link #release}; without {@code mayWait}, only if the slot is free now. Null if the lane buffers nothing or
   * the slot is taken.
   */
  Batch take(boolean mayWait, int max) throws InterruptedException {
    if (buffer.isEmpty()) {
      return null;
    }
    if (mayWait) {
      inFlight.acquire();
    } else if (!inFlight.tryAcquire()) {
      return null;
    }
    Batch batch;
    if (buffer.size() <= max) {
      batch = new Batch(buffer, tokens);
      buffer = new ArrayList<>();
      tokens = new ArrayList<>();
    } else {
      // A backlog (the shard was slow) goes out in batches of the usual size, oldest first.
      batch = new Batch(new ArrayList<>(buffer.subList(0, max)), new ArrayList<>(tokens.subList(0, max)));
      buffer = new ArrayList<>(buffer.subList(max, buffer.size()));
      tokens = new ArrayList<>(tokens.subList(max, tokens.size()));
      firstBufferedAt = Long.MIN_VALUE / 2; // the rest has waited already: send it as soon as the slot is free
    }
    sending = batch.changes();
    return batch;
  }

  /** Frees the request slot once the batch taken with it is acknowledged or failed for good. */
  void release() {
    sending = List.of();
    inFlight.release();
  }

  /** Every change not acknowledged yet, in order: the request in flight, then the buffer. Task thread only. */
  List<RoutedChange> unacknowledged() {
    List<RoutedChange> all = new ArrayList<>(sending);
    all.addAll(buffer);
    return all;
  }

  /** Waits until the lane has no request in flight. */
  void awaitIdle() throws InterruptedException {
    inFlight.acquire();
    inFlight.release();
  }
}
