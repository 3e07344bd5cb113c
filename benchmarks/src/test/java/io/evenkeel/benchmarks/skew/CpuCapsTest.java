package io.evenkeel.benchmarks.skew;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cap holds a busy process to its quota and leaves no group behind; where nothing can be capped, caps say why. */
class CpuCapsTest {
  /** Low, so that the busy process reaches its quota even when the test run keeps both cores busy. */
  private static final double CPUS = 0.05;

  /** Spins two threads until killed: a process that would take two cores if let. */
  static final class Spin {
    static volatile long spins;

    public static void main(String[] args) {
      Runnable spin = () -> {
        while (true) {
          spins++;
        }
      };
      new Thread(spin).start();
      spin.run();
    }
  }

  private static Process spin() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path classes = Path.of(Spin.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx32m",
        "-cp", classes.toString(), Spin.class.getName()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static double cpuSeconds(Process process) {
    return process.info().totalCpuDuration().orElseThrow().toNanos() / 1e9;
  }

  @Test
  void aBusyProcessGetsItsQuotaAndOutlivesTheGroups() throws Exception {
    CpuCaps caps = CpuCaps.open("test");
    Process busy = null;
    try {
      assumeTrue(caps.available(), caps.why());
      assertThat(caps.why()).isEmpty();
      assertThat(caps.describe()).startsWith("cgroup v");
      CpuCaps.Group group = caps.cap("node-0", CPUS);
      assertThat(group.name()).isEqualTo("node-0");
      assertThat(group.cpus()).isEqualTo(CPUS);
      busy = spin();
      group.add(busy.pid());

      CpuCaps.Throttling before = group.stats();
      double cpuBefore = cpuSeconds(busy);
      long start = System.nanoTime();
      Thread.sleep(3_000);
      double used = cpuSeconds(busy) - cpuBefore;
      CpuCaps.Throttling after = group.stats();
      double elapsed = (System.nanoTime() - start) / 1e9;

      // Uncapped, two spinning threads would take up to 2 CPU seconds a second; capped, the quota (and a margin).
      assertThat(used).isPositive().isLessThanOrEqualTo(CPUS * elapsed * 1.5);
      assertThat(after.throttledPeriods()).isPositive().isLessThanOrEqualTo(after.periods());
      assertThat(after.throttledSeconds()).isPositive();
      if (!Double.isNaN(after.usageSeconds())) {
        assertThat(after.usageSeconds() - before.usageSeconds()).isPositive()
            .isLessThanOrEqualTo(CPUS * elapsed * 1.5);
      }

      // Closing moves the process back to the root group before removing the groups: it runs on, uncapped.
      caps.close();
      assertThat(group.dir()).doesNotExist();
      assertThat(group.dir().getParent()).doesNotExist();
      assertThat(busy.isAlive()).isTrue();
      assertThat(Files.readString(Path.of("/proc", Long.toString(busy.pid()), "cgroup"))).doesNotContain("evenkeel-");
      caps.close();
    } finally {
      try {
        if (busy != null) {
          busy.destroyForcibly().waitFor();
        }
      } finally {
        caps.close();
      }
    }
  }

  @Test
  void aProcessThatEndedInAGroupDoesNotStopTheClose() throws Exception {
    CpuCaps caps = CpuCaps.open("test-ended");
    try {
      assumeTrue(caps.available(), caps.why());
      CpuCaps.Group group = caps.cap("node-0", 0.5);
      Process busy = spin();
      group.add(busy.pid());
      assertThat(busy.destroyForcibly().waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> group.add(busy.pid())).hasMessageContaining("cannot move process " + busy.pid());
      caps.close();
      assertThat(group.dir().getParent()).doesNotExist();
    } finally {
      caps.close();
    }
  }

  @Test
  void whereNothingCanBeCappedCapsSayWhyAndCapNothing(@TempDir Path dir) throws Exception {
    CpuCaps none = CpuCaps.open("test", dir.resolve("cpu"), dir);
    assertThat(none.available()).isFalse();
    assertThat(none.why()).contains(dir.resolve("cpu").toString()).endsWith(": running uncapped");
    assertThat(none.describe()).isEqualTo("uncapped: " + none.why());
    assertThatThrownBy(() -> none.cap("node-0", 0.25)).isInstanceOf(IllegalStateException.class)
        .hasMessage(none.why());
    none.close();
    none.close();

    // v1's root is there, but its parent group cannot be made (root may write anywhere: a file is in the way).
    Path v1 = Files.createDirectory(dir.resolve("cpu"));
    Files.writeString(v1.resolve("cpu.cfs_quota_us"), "-1\n");
    Files.writeString(v1.resolve("evenkeel-test-" + ProcessHandle.current().pid()), "");
    CpuCaps blocked = CpuCaps.open("test", v1, dir);
    assertThat(blocked.available()).isFalse();
    assertThat(blocked.why()).startsWith(v1 + " is not writable (FileAlreadyExistsException")
        .endsWith(": running uncapped");
    blocked.close();

    // v2 is preferred where its root has the cpu controller: it enables cpu for the root's children, and takes its
    // parent group back when it cannot enable cpu for that one's (here a plain directory, without the kernel's files).
    Files.writeString(dir.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
    Files.writeString(dir.resolve("cgroup.subtree_control"), "");
    CpuCaps v2 = CpuCaps.open("test", v1, dir);
    assertThat(v2.available()).isFalse();
    assertThat(v2.why()).startsWith(dir + " is not writable (NoSuchFileException");
    assertThat(Files.readString(dir.resolve("cgroup.subtree_control"))).isEqualTo("+cpu");
    assertThat(dir.resolve("evenkeel-test-" + ProcessHandle.current().pid())).doesNotExist();
  }

  @Test
  void aCapNeedsAPlainNameAndSomeCpu() throws Exception {
    try (CpuCaps caps = CpuCaps.open("test-args")) {
      assumeTrue(caps.available(), caps.why());
      assertThatThrownBy(() -> caps.cap("../escape", 0.25)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> caps.cap("node-0", 0)).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
