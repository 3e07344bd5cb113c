package io.evenkeel.benchmarks.ingest;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * CPU seconds spent by each part of the in-process pipeline between two snapshots, from per-thread CPU times grouped
 * by thread name, plus the Kafka broker's child process. Noise from other processes on the machine moves wall-clock
 * figures; CPU seconds per part say where this pipeline's own work goes.
 */
final class CpuByPart {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** Flink names a task's thread after its operators and subtask, e.g. "window summary (1/2)#0". */
  private static final Pattern SUBTASK = Pattern.compile("\\(\\d+/\\d+\\)");

  /** CPU of threads that ended since the last start, recorded by each such thread as it ends. */
  private static final Map<String, Double> ENDED = new java.util.concurrent.ConcurrentHashMap<>();

  private final Map<Long, Long> startNanosByThread = new LinkedHashMap<>();
  private final long brokerPid;
  private final Duration brokerStart;
  private final long gcStartMs;

  private CpuByPart(long brokerPid) {
    ENDED.clear();
    this.brokerPid = brokerPid;
    for (long id : THREADS.getAllThreadIds()) {
      startNanosByThread.put(id, THREADS.getThreadCpuTime(id));
    }
    this.brokerStart = processCpu(brokerPid);
    this.gcStartMs = gcMillis();
  }

  static CpuByPart start(long brokerPid) {
    return new CpuByPart(brokerPid);
  }

  /** Records the calling thread's CPU time, for a thread started after {@link #start} that ends before the end. */
  static void threadEnding() {
    ENDED.merge(part(Thread.currentThread().getName()), THREADS.getCurrentThreadCpuTime() / 1e9, Double::sum);
  }

  /** CPU seconds per part since the start; threads that ended meanwhile count if they called {@link #threadEnding}. */
  Map<String, Double> secondsByPart() {
    Map<String, Double> parts = new LinkedHashMap<>();
    for (String part : new String[] {"shard servers", "Flink job", "gRPC transport", "producer (client)",
        "GC (collection time)", "Kafka broker (process)", "other"}) {
      parts.put(part, ENDED.getOrDefault(part, 0.0));
    }
    for (long id : THREADS.getAllThreadIds()) {
      long now = THREADS.getThreadCpuTime(id);
      ThreadInfo info = THREADS.getThreadInfo(id);
      if (now < 0 || info == null) {
        continue;
      }
      long spent = now - startNanosByThread.getOrDefault(id, 0L);
      parts.merge(part(info.getThreadName()), spent / 1e9, Double::sum);
    }
    parts.put("GC (collection time)", (gcMillis() - gcStartMs) / 1e3);
    parts.put("Kafka broker (process)", (processCpu(brokerPid).minus(brokerStart)).toMillis() / 1e3);
    return parts;
  }

  static String describe(Map<String, Double> parts) {
    double total = parts.values().stream().mapToDouble(Double::doubleValue).sum();
    StringJoiner line = new StringJoiner(", ");
    parts.forEach((part, seconds) -> line.add(String.format(Locale.ROOT, "%s %.1f s (%.0f%%)", part, seconds,
        100 * seconds / total)));
    return String.format(Locale.ROOT, "%.1f CPU-s: %s", total, line);
  }

  private static String part(String thread) {
    if (thread.startsWith("grpc-default-executor") || thread.startsWith("shard-") || thread.startsWith("Lucene Merge")) {
      return "shard servers"; // gRPC handlers (decode, translog, index), refresh and commit, merges
    }
    if (thread.startsWith("grpc-") || thread.contains("ELG")) {
      return "gRPC transport";
    }
    if (thread.startsWith("bench-producer")) {
      return "producer (client)";
    }
    if (SUBTASK.matcher(thread).find() || thread.contains("->") || thread.startsWith("Source")
        || thread.startsWith("Time Trigger") || thread.startsWith("kafka-producer-network-thread")
        || thread.startsWith("flink-") || thread.startsWith("AsyncOperations") || thread.startsWith("Checkpoint")) {
      return "Flink job";
    }
    return "other";
  }

  private static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
        .sum();
  }

  private static Duration processCpu(long pid) {
    return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).orElse(Duration.ZERO);
  }
}
