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
  private long bufferedBytes;
  private long firstBufferedAt;
  /** The buffer holds changes left from a batch cut at its size: they have waited already. */
  private boolean backlog;
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
   * as one batch and the request slot with it, to be given back by {@link #release}; without {@code mayWait}, only if
   * the slot is free now. Null if the lane buffers nothing or the slot is taken.
   */
  Batch take(boolean mayWait, int maxChanges, long maxBytes) throws InterruptedException {
    if (buffer.isEmpty()) {
      return null;
    }
    if (mayWait) {
      inFlight.acquire();
    } else if (!inFlight.tryAcquire()) {
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
