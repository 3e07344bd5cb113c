package io.evenkeel.shard.grpc;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 * <p>Writes come first: while the server is writing ({@link #noteWrite} within the last second), a party's reads use
 * at most {@code partyCores} of CPU time per second. Each task's CPU time is added to its party's account, which
 * drains at that rate; a party more than {@link #BURST_NANOS} behind waits for its account to drain before its next
 * task starts (its other reads are not held: they are other parties). A party of small queries never waits; one
 * whose queries scan the whole index cannot take the cores the indexing needs. Alone, reads use every worker.
 *
 * <p>A task waits here, not on a thread: waiting costs no CPU, and the calls' own threads are bounded elsewhere
 * ({@link CallExecutors}).
 */
public final class FairReads implements AutoCloseable {
  /** The CPU time a party may use ahead of its share: a few ordinary queries' worth. */
  static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  /** Accounts kept before the drained ones of parties with nothing running are dropped. */
  private static final int MAX_IDLE_ACCOUNTS = 1024;
  /** How long after a write the server counts as writing. */
  private static final long WRITING_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final int perParty;
  private final ExecutorService workers;
  private final int workerCount;
  private final double partyCores;
  private volatile long lastWriteNanos = System.nanoTime() - 2 * WRITING_NANOS;
  /** Each party's CPU time not yet drained; kept only with a finite share. */
  private final Map<String, Account> accounts = new HashMap<>();
  /** When a dispatch is scheduled for parties waiting on their accounts (Long.MAX_VALUE: none). */
  private long wakeAt = Long.MAX_VALUE;
  /** A party's CPU time not yet drained, in nanoseconds, as of {@code at} ({@link System#nanoTime()}). */
  private static final class Account {
    long owedNanos;
    long at;
  }

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

  /** With no CPU share while writing: turns only. */
  public FairReads(int workers, int perParty) {
    this(workers, perParty, Double.POSITIVE_INFINITY);
  }

  public FairReads(int workers, int perParty, double partyCores) {
    if (workers < 1 || perParty < 1 || !(partyCores > 0)) {
      throw new IllegalArgumentException("workers and perParty must be at least 1 and partyCores above 0; got "
          + workers + ", " + perParty + ", " + partyCores);
    }
    this.workerCount = workers;
    this.partyCores = partyCores;
    this.perParty = Math.min(perParty, workers);
    AtomicInteger next = new AtomicInteger();
    this.workers = Executors.newFixedThreadPool(workers, runnable -> {
      Thread thread = new Thread(runnable, "shard-reads-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * The default for this machine: two workers per core, a party at most half of them, and while the server writes, an
   * eighth of the cores' time (a quarter of a core at least).
   */
  public static FairReads forThisMachine() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new FairReads(2 * cores, cores, Math.max(0.25, cores / 8.0));
  }

  /** Says the server has just written: for the next second, each party's reads keep to their CPU share. */
  public void noteWrite() {
    lastWriteNanos = System.nanoTime();
  }

  /** Whether the server wrote within the last second. */
  public boolean writing() {
    return System.nanoTime() - lastWriteNanos < WRITING_NANOS;
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
      long cpuBefore = THREADS.getCurrentThreadCpuTime();
      try {
        result.complete(task.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      } finally {
        finished(party, THREADS.getCurrentThreadCpuTime() - cpuBefore);
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

  private synchronized void finished(String party, long cpuNanos) {
    if (partyCores != Double.POSITIVE_INFINITY) {
      long now = System.nanoTime();
      Account account = accounts.computeIfAbsent(party, p -> new Account());
      account.owedNanos = owed(account, now) + Math.max(0, cpuNanos);
      account.at = now;
      if (accounts.size() > MAX_IDLE_ACCOUNTS) {
        accounts.entrySet().removeIf(e -> owed(e.getValue(), now) == 0 && !running.containsKey(e.getKey()));
      }
    }
    runningTotal--;
    running.merge(party, -1, Integer::sum);
    if (running.get(party) == 0) {
      running.remove(party);
    }
    dispatch();
  }

  /** What {@code account} still owes at {@code now}, after draining at the party's share. */
  private long owed(Account account, long now) {
    return Math.max(0, account.owedNanos - (long) ((now - account.at) * partyCores));
  }

  /**
   * How long until {@code party} may start a task as far as its CPU account goes: 0 when the server is not writing
   * or the party is within its burst; otherwise until the account drains to the burst or the writing ends.
   */
  private long cpuWait(String party, long now) {
    Account account = accounts.get(party);
    if (account == null || !writing()) {
      return 0;
    }
    long owed = owed(account, now);
    if (owed <= BURST_NANOS) {
      if (owed == 0 && !running.containsKey(party)) {
        accounts.remove(party);
      }
      return 0;
    }
    long drained = (long) ((owed - BURST_NANOS) / partyCores);
    return Math.max(1, Math.min(drained, lastWriteNanos + WRITING_NANOS - now));
  }

  /** Starts waiting tasks while workers are free, one per party in turn, skipping parties at their share. */
  private void dispatch() {
    boolean started = true;
    long now = System.nanoTime();
    long soonest = Long.MAX_VALUE;
    while (!closed && runningTotal < workerCount && started) {
      started = false;
      for (Iterator<Map.Entry<String, Deque<Task>>> it = waiting.entrySet().iterator();
          it.hasNext() && runningTotal < workerCount; ) {
        Map.Entry<String, Deque<Task>> entry = it.next();
        String party = entry.getKey();
        if (running.getOrDefault(party, 0) >= perParty) {
          continue;
        }
        long wait = cpuWait(party, now);
        if (wait > 0) {
          soonest = Math.min(soonest, wait);
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
    if (soonest != Long.MAX_VALUE && !closed && now + soonest < wakeAt) {
      // A party waits on its account alone: look again once it has drained (no task's end may come first).
      wakeAt = now + soonest;
      TIMEOUTS.schedule(this::wake, soonest, TimeUnit.NANOSECONDS);
    }
  }

  private synchronized void wake() {
    if (System.nanoTime() - wakeAt >= 0) {
      wakeAt = Long.MAX_VALUE;
    }
    dispatch();
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
