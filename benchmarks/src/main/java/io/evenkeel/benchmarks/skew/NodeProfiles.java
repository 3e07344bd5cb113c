package io.evenkeel.benchmarks.skew;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Flight recordings of the capped storage nodes over a measured window, and where their CPU went: what bounds a
 * saturated node. Each node records with its own JDK's {@code jcmd} (OpenSearch runs on a newer JDK than Evenkeel;
 * this JVM reads both files) at JFR's default settings (a sample every 20 ms), the same on both sides.
 */
final class NodeProfiles {
  /** How long a recording may take to appear once its duration is over. */
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(60);

  private final List<Path> files = new ArrayList<>();
  private final Thread starter;
  private volatile String failure;

  private NodeProfiles(List<ProcessHandle> nodes, long fromNanos, double seconds, Path dir, String label) {
    for (int i = 0; i < nodes.size(); i++) {
      files.add(dir.resolve(label + "-node-" + i + ".jfr"));
    }
    starter = new Thread(() -> start(nodes, fromNanos, seconds), "skew-profiles-" + label);
    starter.setDaemon(true);
    starter.start();
  }

  /** Starts a recording of {@code seconds} on every node at {@code fromNanos} (this JVM's nanoTime). */
  static NodeProfiles schedule(List<ProcessHandle> nodes, long fromNanos, double seconds, Path dir, String label)
      throws IOException {
    Files.createDirectories(dir);
    return new NodeProfiles(nodes, fromNanos, seconds, dir, label);
  }

  private void start(List<ProcessHandle> nodes, long fromNanos, double seconds) {
    try {
      TimeUnit.NANOSECONDS.sleep(fromNanos - System.nanoTime());
      for (int i = 0; i < nodes.size(); i++) {
        Path java = Path.of(nodes.get(i).info().command().orElseThrow());
        Process jcmd = new ProcessBuilder(java.resolveSibling("jcmd").toString(), Long.toString(nodes.get(i).pid()),
            "JFR.start", "name=skew-benchmark", "settings=default", "duration=" + Math.round(seconds) + "s",
            "filename=" + files.get(i).toAbsolutePath()).redirectErrorStream(true).start();
        String said = new String(jcmd.getInputStream().readAllBytes());
        if (jcmd.waitFor() != 0) {
          failure = "jcmd " + nodes.get(i).pid() + ": " + said.strip();
        }
      }
    } catch (Exception e) {
      failure = e.toString();
    }
  }

  /**
   * Where the nodes' CPU went, once every recording is written: by thread pool (writes, merges, refreshes, reads), by
   * code, the hottest methods, and GC pauses.
   */
  Summary summary() throws Exception {
    starter.join();
    if (failure != null) {
      return new Summary(Map.of(), Map.of(), Map.of(), 0, 0, failure);
    }
    Map<String, Integer> methods = new HashMap<>();
    Map<String, Integer> packages = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    int samples = 0;
    double gcPauseMillis = 0;
    for (Path file : files) {
      awaitWritten(file);
      for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
        switch (event.getEventType().getName()) {
          case "jdk.ExecutionSample" -> {
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            if (frames.isEmpty()) {
              continue;
            }
            String type = frames.get(0).getMethod().getType().getName();
            methods.merge(simpleName(type) + "." + frames.get(0).getMethod().getName(), 1, Integer::sum);
            packages.merge(codeOf(frames), 1, Integer::sum);
            // "grpc-writes-3", "opensearch[node-1][write][T#2]": the pool, not the thread.
            threads.merge(event.getThread("sampledThread").getJavaName().replaceAll("\\d+", "N"), 1, Integer::sum);
            samples++;
          }
          case "jdk.GarbageCollection" -> gcPauseMillis += event.getDuration("sumOfPauses").toNanos() / 1e6;
          default -> { }
        }
      }
    }
    return new Summary(top(threads, samples, 6), top(packages, samples, 6), top(methods, samples, 6), samples,
        gcPauseMillis, null);
  }

  private static void awaitWritten(Path file) throws Exception {
    long deadline = System.nanoTime() + WRITE_TIMEOUT.toNanos();
    long size = -1;
    // JFR writes the file when the duration ends; wait until it is there and has stopped growing.
    while (!Files.exists(file) || Files.size(file) == 0 || Files.size(file) != size) {
      if (System.nanoTime() > deadline) {
        throw new IOException("no recording written to " + file);
      }
      size = Files.exists(file) ? Files.size(file) : -1;
      Thread.sleep(500);
    }
  }

  /**
   * The code a sample's time belongs to: the package (three levels) of the innermost frame outside the JDK, so that a
   * hash map lookup inside Lucene counts for Lucene; the JDK's own when no other frame is on the stack.
   */
  private static String codeOf(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
        return packageOf(type);
      }
    }
    return packageOf(frames.get(0).getMethod().getType().getName());
  }

  private static String packageOf(String type) {
    String[] parts = type.split("\\.");
    int levels = Math.min(3, parts.length - 1);
    return String.join(".", List.of(parts).subList(0, Math.max(1, levels)));
  }

  private static String simpleName(String type) {
    return type.substring(type.lastIndexOf('.') + 1);
  }

  private static Map<String, Double> top(Map<String, Integer> counts, int total, int limit) {
    Map<String, Double> top = new LinkedHashMap<>();
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(limit)
        .forEach(entry -> top.put(entry.getKey(), (double) entry.getValue() / total));
    return top;
  }

  /** Shares of CPU samples by thread pool (what work), by package (whose code) and by method (where exactly). */
  record Summary(Map<String, Double> threads, Map<String, Double> packages, Map<String, Double> methods, int samples,
      double gcPauseMillis, String failure) {

    String describe() {
      if (failure != null) {
        return "not recorded: " + failure;
      }
      return String.format(Locale.ROOT, "%,d samples; by thread: %s; by code: %s; hottest methods: %s; GC pauses "
          + "%,.0f ms", samples, shares(threads, "`"), shares(packages, ""), shares(methods, "`"), gcPauseMillis);
    }

    private static String shares(Map<String, Double> shares, String quote) {
      List<String> parts = new ArrayList<>();
      shares.forEach((name, share) -> parts.add(String.format(Locale.ROOT, "%s%s%s %.0f%%", quote, name, quote,
          100 * share)));
      return String.join(", ", parts);
    }
  }
}
