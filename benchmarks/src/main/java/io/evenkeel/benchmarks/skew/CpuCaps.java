package io.evenkeel.benchmarks.skew;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU quotas for groups of processes, through the kernel's CPU controller (cgroup v1 or v2), so that a benchmark on
 * one machine can model capacity-limited nodes: N storage nodes, each in its own group with the same quota (say 0.25
 * CPU), rather than N processes sharing every core freely and hiding the skew a small node would feel.
 *
 * <p>Groups live under a parent named for the benchmark and this JVM's PID, so two runs never meet. Where no CPU
 * controller is writable (no root, a read-only mount, no cgroups), {@link #open} still returns an instance: {@link
 * #available()} is false and {@link #why()} says why, and the caller runs uncapped and reports it.
 */
public final class CpuCaps implements AutoCloseable {
  /** The CFS period every group gets: quotas are fractions of it. */
  static final long PERIOD_US = 100_000;

  private final Path root; // the hierarchy's root, or null when unavailable
  private final boolean v2;
  private final Path parent;
  private final Path acctParent; // v1 only: the mirror group under a cpuacct mounted apart from cpu, else null
  private final String why;
  private final List<Group> groups = new ArrayList<>();
  private boolean closed;

  private CpuCaps(Path root, boolean v2, Path parent, Path acctParent, String why) {
    this.root = root;
    this.v2 = v2;
    this.parent = parent;
    this.acctParent = acctParent;
    this.why = why;
  }

  /** Groups under this machine's cgroup v2 hierarchy if it has the cpu controller, else under v1's cpu one. */
  public static CpuCaps open(String name) {
    return open(name, Path.of("/sys/fs/cgroup/cpu"), Path.of("/sys/fs/cgroup"));
  }

  /** As {@link #open(String)}, with the roots to look at: a test's directories, say. */
  static CpuCaps open(String name, Path v1Root, Path v2Root) {
    String dir = "evenkeel-" + name + "-" + ProcessHandle.current().pid();
    Path root = v2Root;
    try {
      Path controllers = v2Root.resolve("cgroup.controllers");
      if (Files.exists(controllers) && words(Files.readString(controllers)).contains("cpu")) {
        // In v2 a group's children have cpu.max only once its cgroup.subtree_control enables the controller.
        enableCpu(v2Root);
        Path parent = Files.createDirectory(v2Root.resolve(dir));
        try {
          enableCpu(parent);
        } catch (IOException e) {
          Files.deleteIfExists(parent);
          throw e;
        }
        return new CpuCaps(v2Root, true, parent, null, null);
      }
      root = v1Root;
      if (!Files.exists(v1Root.resolve("cpu.cfs_quota_us"))) {
        return new CpuCaps(null, false, null, null, "no cgroup cpu controller at " + v1Root + " (v1) or "
            + v2Root + " (v2): running uncapped");
      }
      Path parent = Files.createDirectory(v1Root.resolve(dir));
      // cpu.stat in v1 has no usage: it is cpuacct's, either mounted with cpu or apart, where we mirror the groups.
      Path acct = v1Root.resolveSibling("cpuacct");
      boolean apart = !Files.exists(v1Root.resolve("cpuacct.usage")) && Files.exists(acct.resolve("cpuacct.usage"));
      return new CpuCaps(v1Root, false, parent, apart ? mirror(acct.resolve(dir)) : null, null);
    } catch (IOException e) {
      return new CpuCaps(null, false, null, null, root + " is not writable (" + reason(e) + "): running uncapped");
    }
  }

  /** Whether {@link #cap} can cap anything. */
  public boolean available() {
    return root != null;
  }

  /** Why CPU cannot be capped here, or "" when it can. */
  public String why() {
    return available() ? "" : why;
  }

  /** Which controller caps the CPU, for a benchmark's report. */
  public String describe() {
    return available() ? "cgroup " + (v2 ? "v2" : "v1") + " cpu controller at " + root : "uncapped: " + why;
  }

  /** A new group whose processes together get at most {@code cpus} CPUs (0.25: a quarter of one core's time). */
  public synchronized Group cap(String groupName, double cpus) throws IOException {
    if (!available() || closed) {
      throw new IllegalStateException(closed ? "CPU caps are closed" : why);
    }
    if (!groupName.matches("[A-Za-z0-9._-]+") || !(cpus > 0)) {
      throw new IllegalArgumentException("a group needs a plain name and cpus > 0: " + groupName + ", " + cpus);
    }
    long quota = Math.max(1_000, Math.round(cpus * PERIOD_US)); // the kernel's least quota is 1 ms
    Path dir = Files.createDirectory(parent.resolve(groupName));
    Group group = new Group(groupName, cpus, dir, acctParent == null ? null : mirror(acctParent.resolve(groupName)));
    groups.add(group); // before the writes, so that close() removes it whatever fails
    try {
      if (v2) {
        write(dir.resolve("cpu.max"), quota + " " + PERIOD_US);
      } else {
        write(dir.resolve("cpu.cfs_period_us"), PERIOD_US);
        write(dir.resolve("cpu.cfs_quota_us"), quota);
      }
    } catch (IOException e) {
      throw new IOException("cannot cap " + dir + " at " + cpus + " CPU: " + reason(e), e);
    }
    return group;
  }

  /**
   * Moves every process still in a group back to the root group, then removes the groups. Safe to call twice, and
   * when unavailable. Throws the first failure after trying everything else.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed || !available()) {
      closed = true;
      return;
    }
    closed = true;
    List<IOException> failures = new ArrayList<>();
    for (Group group : groups) {
      release(group.dir, root, failures);
      if (group.acctDir != null) {
        release(group.acctDir, acctParent.getParent(), failures);
      }
    }
    release(parent, root, failures);
    if (acctParent != null) {
      release(acctParent, acctParent.getParent(), failures);
    }
    if (!failures.isEmpty()) {
      IOException first = failures.get(0);
      failures.subList(1, failures.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  /** Moves a group's processes to {@code to}, then removes the (now empty) group. */
  private static void release(Path group, Path to, List<IOException> failures) {
    try {
      // A process may fork while we move it: read again until the group is empty.
      for (int round = 0; round < 10; round++) {
        List<String> pids = Files.readAllLines(group.resolve("cgroup.procs"));
        pids.removeIf(String::isBlank);
        if (pids.isEmpty()) {
          break;
        }
        for (String pid : pids) {
          try {
            write(to.resolve("cgroup.procs"), pid.trim());
          } catch (IOException e) {
            // ESRCH: the process ended since we read the list, and has nothing left to move.
            boolean gone = "No such process".equals(e.getMessage())
                || ProcessHandle.of(Long.parseLong(pid.trim())).isEmpty();
            if (!gone) {
              throw new IOException("process " + pid.trim() + " did not move to " + to + " (" + reason(e) + ")", e);
            }
          }
        }
      }
      Files.delete(group);
    } catch (IOException e) {
      failures.add(new IOException("cannot remove " + group + ": " + reason(e), e));
    }
  }

  /** A group in the cpuacct hierarchy, to count usage by, or null: a group is capped all the same without it. */
  private static Path mirror(Path group) {
    try {
      return Files.createDirectory(group);
    } catch (IOException e) {
      return null;
    }
  }

  /** The controller words of a cgroup.controllers or cgroup.subtree_control file. */
  private static List<String> words(String text) {
    return List.of(text.trim().split("\\s+"));
  }

  private static void enableCpu(Path group) throws IOException {
    Path control = group.resolve("cgroup.subtree_control");
    if (!words(Files.readString(control)).contains("cpu")) {
      write(control, "+cpu");
    }
  }

  /** One write(2) of the whole value: cgroup files take one value a write, and have no CREATE or truncation. */
  private static void write(Path file, Object value) throws IOException {
    Files.writeString(file, value.toString(), StandardOpenOption.WRITE);
  }

  private static String reason(IOException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  /** CPU a group's processes used and were refused, since the group was made. NaN usage where not counted. */
  public record Throttling(long periods, long throttledPeriods, double throttledSeconds, double usageSeconds) {
    /** What happened between {@code earlier} and this reading. */
    public Throttling minus(Throttling earlier) {
      return new Throttling(periods - earlier.periods, throttledPeriods - earlier.throttledPeriods,
          throttledSeconds - earlier.throttledSeconds, usageSeconds - earlier.usageSeconds);
    }
  }

  /** One capped group, like one node of the modelled cluster. */
  public final class Group {
    private final String name;
    private final double cpus;
    private final Path dir;
    private final Path acctDir;

    private Group(String name, double cpus, Path dir, Path acctDir) {
      this.name = name;
      this.cpus = cpus;
      this.dir = dir;
      this.acctDir = acctDir;
    }

    /** Moves a process, all its threads, into the group; the children it starts from then on are born in it. */
    public void add(long pid) throws IOException {
      try {
        write(dir.resolve("cgroup.procs"), pid);
        if (acctDir != null) {
          write(acctDir.resolve("cgroup.procs"), pid);
        }
      } catch (IOException e) {
        throw new IOException("cannot move process " + pid + " into " + dir + ": " + reason(e), e);
      }
    }

    /** The group's periods, those it was throttled in, and its CPU seconds refused and used. */
    public Throttling stats() throws IOException {
      Map<String, Long> stat = new HashMap<>();
      for (String line : Files.readAllLines(dir.resolve("cpu.stat"))) {
        String[] field = line.trim().split("\\s+");
        if (field.length == 2) {
          stat.put(field[0], Long.parseLong(field[1]));
        }
      }
      long periods = stat.getOrDefault("nr_periods", 0L);
      long throttled = stat.getOrDefault("nr_throttled", 0L);
      if (v2) {
        return new Throttling(periods, throttled, stat.getOrDefault("throttled_usec", 0L) / 1e6,
            stat.containsKey("usage_usec") ? stat.get("usage_usec") / 1e6 : Double.NaN);
      }
      Path usage = Files.exists(dir.resolve("cpuacct.usage")) ? dir.resolve("cpuacct.usage")
          : acctDir == null ? null : acctDir.resolve("cpuacct.usage");
      return new Throttling(periods, throttled, stat.getOrDefault("throttled_time", 0L) / 1e9,
          usage == null ? Double.NaN : Long.parseLong(Files.readString(usage).trim()) / 1e9);
    }

    public double cpus() {
      return cpus;
    }

    public String name() {
      return name;
    }

    /** The group's directory in the cpu hierarchy. */
    Path dir() {
      return dir;
    }
  }
}
