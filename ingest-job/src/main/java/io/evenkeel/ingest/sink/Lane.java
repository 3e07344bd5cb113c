package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

/**
 * One shard's buffer of changes for normal or hot tenants, and the lane's one request slot. The buffer is filled and
 * taken on the task thread; the batch in flight is released from the write client's callback. A lane that took over
 * a tenant's changes from its shard's other lane ({@link #takeTenant}) sends nothing until the other lane's request
 * in flight then is done ({@link #after}), so a row's changes reach the shard in order across the switch.
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
  /** Completes when the request in flight is done; done when none is. */
  private CompletableFuture<Void> requestDone = CompletableFuture.completedFuture(null);
  /** What must be done before this lane sends again: the other lane's request that held a switched tenant's changes. */
  private CompletableFuture<?> gate = CompletableFuture.completedFuture(null);

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
    if (!gate.isDone()) {
      if (!mayWait) {
        return null;
      }
      try {
        gate.get();
      } catch (ExecutionException e) {
        return null; // the other lane's request failed for good: nothing may overtake it, and the sink fails
      }
    }
    if (gate.isCompletedExceptionally()) {
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

  /** Whether the lane has nothing buffered and no request in flight. Task thread only. */
  boolean idle() {
    return buffer.isEmpty() && sending.isEmpty();
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
