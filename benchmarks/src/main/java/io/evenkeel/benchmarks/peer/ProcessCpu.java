package io.evenkeel.benchmarks.peer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** CPU time of processes and of the whole machine, as Linux counts it, for a benchmark's CPU-per-row figures. */
public final class ProcessCpu {
  private ProcessCpu() {}

  /** CPU seconds all processes of the machine have spent since boot (/proc/stat: all but idle and iowait). */
  public static double machineSeconds() throws IOException {
    String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i < fields.length && i <= 8; i++) {
      if (i != 4 && i != 5) {
        busy += Long.parseLong(fields[i]);
      }
    }
    return busy / 100.0; // USER_HZ
  }

  /** CPU time so far of each process, by a name from its command line (its main class or jar) and its PID. */
  public static Map<String, Duration> of(List<ProcessHandle> processes) throws IOException {
    Map<String, Duration> cpu = new LinkedHashMap<>();
    for (ProcessHandle process : processes) {
      Optional<Duration> time = process.info().totalCpuDuration();
      if (time.isPresent()) {
        cpu.put(name(process.pid()) + " (" + process.pid() + ")", time.get());
      }
    }
    return cpu;
  }

  /** Seconds each process spent between two readings of {@link #of}, summed by name. */
  public static Map<String, Double> between(Map<String, Duration> before, Map<String, Duration> after) {
    Map<String, Double> seconds = new LinkedHashMap<>();
    after.forEach((name, spent) -> seconds.merge(name,
        (spent.toMillis() - before.getOrDefault(name, Duration.ZERO).toMillis()) / 1e3, Double::sum));
    return seconds;
  }

  /** The last main class, jar or source file of a process's command line ({@code /proc/<pid>/cmdline}), else "java". */
  private static String name(long pid) throws IOException {
    Path cmdline = Path.of("/proc", Long.toString(pid), "cmdline");
    List<String> args = Files.exists(cmdline) ? List.of(Files.readString(cmdline).split("\u0000")) : List.of();
    for (int i = args.size() - 1; i > 0; i--) {
      String arg = args.get(i);
      if (args.get(i - 1).equals("-jar")) {
        return Path.of(arg).getFileName().toString();
      }
      if (arg.endsWith(".java") && !args.get(i - 1).startsWith("-")) {
        // A single-file source program (the OpenSearch node): its class's name.
        return Path.of(arg).getFileName().toString().replaceFirst("\\.java$", "");
      }
      if (arg.matches("[a-z]\\w*(\\.[a-z]\\w*)*\\.[A-Z]\\w*") && !args.get(i - 1).startsWith("-")) {
        return arg.substring(arg.lastIndexOf('.') + 1);
      }
    }
    return "java";
  }
}
