package io.evenkeel.benchmarks.skew;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import io.evenkeel.benchmarks.peer.BusyException;
import io.evenkeel.benchmarks.peer.ProcessCpu;
import io.evenkeel.benchmarks.query.BenchmarkFigures;
import io.evenkeel.benchmarks.skew.ScheduledRows.Due;
import io.evenkeel.benchmarks.skew.ScheduledRows.Group;
import io.evenkeel.schemas.TransactionLogChange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One workload offered to one system, measured as its users see it. Writer threads take the rows that are due
 * ({@link ScheduledRows}) and write them; meanwhile one thread counts the searchable rows every second and asks for
 * the pending probe rows every 250 ms, and another asks tenant queries of hot and small tenants in turn. Figures are
 * taken over the span after the warm-up; a probe's delay runs from when its row was due to the first answer holding
 * it, and a probe never found counts at its wait so far (a lower bound, as for an overloaded system it must be).
 */
final class SkewRun {
  /** This JVM in the CPU figures. */
  static final String CLIENT = "benchmark client";
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long PROBE_INTERVAL = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long BUSY_BACKOFF_MILLIS = 100;
  private static final int PROBES_PER_QUERY = 1_000;
  /** After the offer ends: how long probes may still be found, at most. */
  private static final long GRACE = TimeUnit.SECONDS.toNanos(20);

  /** How the run is driven: writer threads, rows per write, tenant queries a second, probes a second per group. */
  record Drive(int writers, int rowsPerWrite, double queriesPerSecond, double probesPerSecond) {}

  /** A probe row: its group, when it was due, and how long until it was found (or its wait so far). */
  record Probe(Group group, long dueNanos, long delayNanos, boolean found) {}

  /** A tenant query: its group, when it was asked, its latency, the shards it visited; or that it was refused. */
  record Query(Group group, long atNanos, double millis, int shards, boolean refused) {}

  private final SkewTarget target;
  private final SkewWorkload workload;
  private final ScheduledRows rows;
  private final Drive drive;
  private final List<Long> hotTenants;
  private final List<Long> smallTenants;
  private final ConcurrentSkipListMap<Long, Due> pending = new ConcurrentSkipListMap<>();
  private final List<Probe> probes = new ArrayList<>();
  private final List<SearchableWatch.Count> counts = new ArrayList<>();
  private final List<Query> queries = new ArrayList<>();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile boolean offering = true;

  SkewRun(SkewTarget target, SkewWorkload workload, ScheduledRows rows, Drive drive) {
    this.target = target;
    this.workload = workload;
    this.rows = rows;
    this.drive = drive;
    this.hotTenants = rows.tenants(Group.HOT, ScheduledRows.HOT_TENANTS);
    this.smallTenants = rows.tenants(Group.SMALL, 20);
  }

  /** CPU seconds of the system's processes and the caps' throttling over the measured span. */
  record Spent(Map<String, Double> cpuSeconds, List<CpuCaps.Throttling> throttling) {}

  /** What a run measured; nanoTimes are those of this JVM. */
  record Measured(long startNanos, long measureFromNanos, long endNanos, List<SearchableWatch.Count> counts,
      List<Probe> probes, List<Query> queries, Spent spent, long backlogAtEnd) {}

  /** Offers the workload, measures, and returns once the offer and the grace period for probes are over. */
  Measured run(long startNanos, List<CpuCaps.Group> caps) throws Exception {
    long measureFrom = startNanos + (long) (workload.warmupSeconds() * SECOND);
    long end = startNanos + (long) (workload.totalSeconds() * SECOND);
    ExecutorService threads = Executors.newFixedThreadPool(drive.writers() + 2);
    List<Future<?>> writers = new ArrayList<>();
    Map<String, Duration> cpuBefore = null;
    List<CpuCaps.Throttling> throttledBefore = null;
    Map<String, Double> cpu;
    List<CpuCaps.Throttling> throttling = new ArrayList<>();
    long backlog;
    try {
      for (int i = 0; i < drive.writers(); i++) {
        writers.add(threads.submit(this::write));
      }
      Future<?> watch = threads.submit(this::watch);
      Future<?> ask = threads.submit(this::ask);
      sleepUntil(measureFrom);
      cpuBefore = cpu();
      throttledBefore = stats(caps);
      sleepUntil(end);
      cpu = ProcessCpu.between(cpuBefore, cpu());
      List<CpuCaps.Throttling> throttledAfter = stats(caps);
      for (int i = 0; i < throttledAfter.size(); i++) {
        throttling.add(throttledAfter.get(i).minus(throttledBefore.get(i)));
      }
      backlog = rows.backlog(end);
      offering = false;
      for (Future<?> writer : writers) {
        writer.get();
      }
      long graceEnd = System.nanoTime() + Math.min(GRACE, (long) (workload.measureSeconds() * SECOND));
      while (!pending.isEmpty() && System.nanoTime() < graceEnd && failure.get() == null) {
        Thread.sleep(100);
      }
      watch.cancel(true);
      ask.cancel(true);
    } finally {
      offering = false;
      threads.shutdownNow();
      threads.awaitTermination(30, TimeUnit.SECONDS);
    }
    if (failure.get() != null) {
      throw new IllegalStateException(target.name() + " under " + workload.name() + ": " + failure.get(),
          failure.get());
    }
    long now = System.nanoTime();
    List<Probe> all = new ArrayList<>(probes);
    pending.values().forEach(due -> all.add(new Probe(due.group(), due.dueNanos(), now - due.dueNanos(), false)));
    // Rows that were due but never written (the writers' backlog) are probes never found too.
    for (List<Due> unwritten = rows.take(10_000, end); !unwritten.isEmpty(); unwritten = rows.take(10_000, end)) {
      unwritten.stream().filter(Due::probe)
          .forEach(due -> all.add(new Probe(due.group(), due.dueNanos(), now - due.dueNanos(), false)));
    }
    return new Measured(startNanos, measureFrom, end, List.copyOf(counts), all, List.copyOf(queries),
        new Spent(cpu, throttling), backlog);
  }

  /** CPU so far of the system's processes, and of this JVM (the writers, probes and queries) as the client. */
  private Map<String, Duration> cpu() throws Exception {
    Map<String, Duration> cpu = new LinkedHashMap<>(ProcessCpu.of(target.processes()));
    cpu.put(CLIENT, ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO));
    return cpu;
  }

  private static List<CpuCaps.Throttling> stats(List<CpuCaps.Group> caps) throws Exception {
    List<CpuCaps.Throttling> stats = new ArrayList<>();
    for (CpuCaps.Group group : caps) {
      stats.add(group.stats());
    }
    return stats;
  }

  /** A writer: takes what is due, writes it, until the offer ends; the rows' probes start waiting once written. */
  private Void write() throws Exception {
    try {
      while (offering && !rows.exhausted()) {
        List<Due> due = rows.take(drive.rowsPerWrite(), System.nanoTime());
        if (due.isEmpty()) {
          Thread.sleep(2);
          continue;
        }
        List<TransactionLogChange> batch = new ArrayList<>(due.size());
        for (Due row : due) {
          batch.add(row.row());
          if (row.probe()) {
            pending.put(row.row().getRowId(), row);
          }
        }
        writeUntilTaken(batch);
      }
    } catch (Exception e) {
      failure.compareAndSet(null, e);
      throw e;
    }
    return null;
  }

  /** A system that sheds a write (OpenSearch's 429 at a full write queue) gets it again shortly, as its clients do. */
  private void writeUntilTaken(List<TransactionLogChange> batch) throws Exception {
    while (true) {
      try {
        target.write(batch);
        return;
      } catch (BusyException busy) {
        Thread.sleep(BUSY_BACKOFF_MILLIS);
      }
    }
  }

  /**
   * Counts every second and asks for pending probes every 250 ms; a count or a lookup the system sheds is asked again
   * in the next round.
   */
  private void watch() {
    long nextCount = System.nanoTime();
    long cursor = Long.MIN_VALUE;
    while (!Thread.currentThread().isInterrupted()) {
      long started = System.nanoTime();
      try {
        if (started >= nextCount) {
          long rowsNow = target.count();
          synchronized (counts) {
            counts.add(new SearchableWatch.Count(midpoint(started), rowsNow));
          }
          nextCount += SECOND;
        }
        List<Long> batch = SearchableWatch.nextBatch(pending, cursor, PROBES_PER_QUERY);
        if (!batch.isEmpty()) {
          cursor = batch.get(batch.size() - 1);
          long asked = System.nanoTime();
          Set<Long> found = target.found(batch);
          long at = midpoint(asked);
          for (Long rowId : found) {
            Due due = pending.remove(rowId);
            if (due != null) {
              synchronized (probes) {
                probes.add(new Probe(due.group(), due.dueNanos(), at - due.dueNanos(), true));
              }
            }
          }
        }
        sleepUntil(started + PROBE_INTERVAL);
      } catch (InterruptedException e) {
        return;
      } catch (BusyException busy) {
        try {
          sleepUntil(started + PROBE_INTERVAL);
        } catch (InterruptedException e) {
          return;
        }
      } catch (Exception e) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        failure.compareAndSet(null, e);
        return;
      }
    }
  }

  /** Tenant queries at a steady pace, hot and small tenants in turn; one the system sheds counts as refused. */
  private void ask() {
    long interval = (long) (SECOND / drive.queriesPerSecond());
    long next = System.nanoTime();
    for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
      try {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        next += interval;
        Group group = i % 2 == 0 ? Group.HOT : Group.SMALL;
        List<Long> tenants = group == Group.HOT ? hotTenants : smallTenants;
        long tenant = tenants.get((i / 2) % tenants.size());
        long started = System.nanoTime();
        Query query;
        try {
          SkewTarget.Answer answer = target.tenantQuery(tenant);
          query = new Query(group, started, (System.nanoTime() - started) / 1e6, answer.shards(), false);
        } catch (BusyException busy) {
          query = new Query(group, started, (System.nanoTime() - started) / 1e6, 0, true);
        }
        synchronized (queries) {
          queries.add(query);
        }
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        failure.compareAndSet(null, e);
        return;
      }
    }
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long wait = nanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private static long midpoint(long started) {
    return started + (System.nanoTime() - started) / 2;
  }

  /** The nearest-rank quantile, NaN for none. */
  static double quantile(double[] values, double q) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted.length == 0 ? Double.NaN : BenchmarkFigures.percentile(sorted, q);
  }

  /** Values by group, in group order. */
  static <T> Map<Group, List<T>> byGroup(List<T> items, java.util.function.Function<T, Group> group) {
    Map<Group, List<T>> map = new EnumMap<>(Group.class);
    for (T item : items) {
      map.computeIfAbsent(group.apply(item), g -> new ArrayList<>()).add(item);
    }
    return map;
  }

  static Map<String, Double> sumByName(Map<String, Double> cpuSeconds) {
    Map<String, Double> byName = new LinkedHashMap<>();
    cpuSeconds.forEach((name, seconds) -> byName.merge(name.replaceFirst(" \\(\\d+\\)$", ""), seconds, Double::sum));
    return byName;
  }
}
