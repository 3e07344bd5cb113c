package io.evenkeel.shard.grpc;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a shard server's shard searches and fetches with fair turns between the parties that asked for them (a tenant,
 * a tenant key, or "several tenants" for a query that asks every shard): at most {@code workers} run at once, and at
 * most {@code perParty} of one party. A party's tasks beyond that wait in its own queue, and a freed worker takes the
 * next task of the party after the last one served (round robin), so one party's heavy queries take at most its
 * share of the server's CPU, and another party's search starts at once whatever the first has queued.
 *
 * <p>A task waits here, not on a thread: waiting costs no CPU, and the calls' own threads are bounded elsewhere
 * ({@link CallExecutors}).
 */
public final class FairReads implements AutoCloseable {
  private final int perParty;
  private final ExecutorService workers;
  private final int workerCount;
  /** A task and what it completes. */
  private record Task(Runnable run, CompletableFuture<?> result) {}

  /** A task that had not started when its caller's time to start it ran out. */
  public static final class Busy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Busy(String message) {
      super(message);
    }
  }

  /** Fails the tasks whose time to start runs out while they wait. */
  private static final ScheduledExecutorService TIMEOUTS = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "shard-reads-timeouts");
    thread.setDaemon(true);
    return thread;
  });

  /** Each party's waiting tasks, in the order the parties will be served. */
  private final LinkedHashMap<String, Deque<Task>> waiting = new LinkedHashMap<>();
  private boolean closed;
  private final Map<String, Integer> running = new HashMap<>();
  private int runningTotal;

  public FairReads(int workers, int perParty) {
    if (workers < 1 || perParty < 1) {
      throw new IllegalArgumentException("workers and perParty must be at least 1; got " + workers + ", " + perParty);
    }
    this.workerCount = workers;
    this.perParty = Math.min(perParty, workers);
    AtomicInteger next = new AtomicInteger();
    this.workers = Executors.newFixedThreadPool(workers, runnable -> {
      Thread thread = new Thread(runnable, "shard-reads-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** The default for this machine: two workers per core, a party at most half of them. */
  public static FairReads forThisMachine() {
    int workers = 2 * Runtime.getRuntime().availableProcessors();
    return new FairReads(workers, Math.max(1, workers / 2));
  }

  /** Runs {@code task} for {@code party} when its turn comes; the future completes with its result or failure. */
  public <T> CompletableFuture<T> submit(String party, Callable<T> task) {
    return submit(party, task, Long.MAX_VALUE);
  }

  /**
   * As {@link #submit(String, Callable)}, but a task still waiting at {@code startBy} ({@link System#nanoTime()})
   * does not run: its future fails with {@link Busy}.
   */
  public <T> CompletableFuture<T> submit(String party, Callable<T> task, long startBy) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable run = () -> {
      try {
        result.complete(task.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      } finally {
        finished(party);
      }
    };
    synchronized (this) {
      if (closed) {
        result.completeExceptionally(new IllegalStateException("the shard server is stopping"));
        return result;
      }
      Task queued = new Task(run, result);
      waiting.computeIfAbsent(party, p -> new ArrayDeque<>()).add(queued);
      dispatch();
      if (startBy != Long.MAX_VALUE && !result.isDone()) {
        TIMEOUTS.schedule(() -> expire(party, queued), Math.max(0, startBy - System.nanoTime()),
            TimeUnit.NANOSECONDS);
      }
    }
    return result;
  }

  /** Fails {@code task} if it is still waiting. */
  private void expire(String party, Task task) {
    int runningOfParty;
    int waitingOfParty;
    synchronized (this) {
      Deque<Task> tasks = waiting.get(party);
      if (tasks == null || !tasks.remove(task)) {
        return;
      }
      if (tasks.isEmpty()) {
        waiting.remove(party);
      }
      runningOfParty = running.getOrDefault(party, 0);
      waitingOfParty = tasks.size();
    }
    task.result().completeExceptionally(new Busy("the reads of " + party + " (" + runningOfParty + " running, "
        + waitingOfParty + " more waiting) did not leave this one a turn before the caller's deadline; retry "
        + "shortly"));
  }

  private synchronized void finished(String party) {
    runningTotal--;
    running.merge(party, -1, Integer::sum);
    if (running.get(party) == 0) {
      running.remove(party);
    }
    dispatch();
  }

  /** Starts waiting tasks while workers are free, one per party in turn, skipping parties at their share. */
  private void dispatch() {
    boolean started = true;
    while (!closed && runningTotal < workerCount && started) {
      started = false;
      for (Iterator<Map.Entry<String, Deque<Task>>> it = waiting.entrySet().iterator();
          it.hasNext() && runningTotal < workerCount; ) {
        Map.Entry<String, Deque<Task>> entry = it.next();
        String party = entry.getKey();
        if (running.getOrDefault(party, 0) >= perParty) {
          continue;
        }
        Task task = entry.getValue().poll();
        it.remove();
        running.merge(party, 1, Integer::sum);
        runningTotal++;
        workers.execute(task.run());
        started = true;
        if (!entry.getValue().isEmpty()) {
          // Served: to the back of the line.
          waiting.put(party, entry.getValue());
          break;
        }
      }
    }
  }

  /** Tasks waiting for a turn now. */
  public synchronized int waiting() {
    return waiting.values().stream().mapToInt(Deque::size).sum();
  }

  /** Fails the waiting tasks; the running ones finish. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      waiting.values().forEach(tasks -> tasks.forEach(task -> task.result().completeExceptionally(
          new IllegalStateException("the shard server is stopping"))));
      waiting.clear();
    }
    workers.shutdown();
  }
}
