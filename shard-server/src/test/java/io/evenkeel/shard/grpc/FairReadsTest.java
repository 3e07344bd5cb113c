package io.evenkeel.shard.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FairReadsTest {
  @Test
  void aPartyWithMuchQueuedDelaysAnotherByOneTaskAtMost() throws Exception {
    try (FairReads reads = new FairReads(2, 2)) {
      CountDownLatch release = new CountDownLatch(1);
      List<CompletableFuture<Integer>> heavy = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int n = i;
        heavy.add(reads.submit("every tenant", () -> {
          release.await();
          return n;
        }));
      }
      assertThat(reads.waiting()).isEqualTo(18);
      CompletableFuture<String> light = reads.submit("tenant 7", () -> "answered");
      // Both workers hold the heavy party's tasks; the light task is next in line, ahead of 18 heavy ones.
      assertThat(light).isNotDone();
      release.countDown();
      assertThat(light.get(10, TimeUnit.SECONDS)).isEqualTo("answered");
      for (int i = 0; i < heavy.size(); i++) {
        assertThat(heavy.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i);
      }
    }
  }

  @Test
  void onePartyTakesAtMostItsShareOfTheWorkers() throws Exception {
    try (FairReads reads = new FairReads(4, 2)) {
      CountDownLatch release = new CountDownLatch(1);
      for (int i = 0; i < 10; i++) {
        reads.submit("every tenant", () -> release.await(10, TimeUnit.SECONDS));
      }
      // Two workers are free for everyone else while the first party waits for its share.
      CompletableFuture<String> other = reads.submit("tenant 7", () -> "at once");
      assertThat(other.get(5, TimeUnit.SECONDS)).isEqualTo("at once");
      assertThat(reads.waiting()).isEqualTo(8);
      release.countDown();
    }
  }

  @Test
  void partiesTakeTurns() throws Exception {
    try (FairReads reads = new FairReads(1, 1)) {
      CountDownLatch release = new CountDownLatch(1);
      reads.submit("first", () -> release.await(10, TimeUnit.SECONDS));
      List<String> order = Collections.synchronizedList(new ArrayList<>());
      List<CompletableFuture<Boolean>> tasks = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        tasks.add(reads.submit("a", () -> order.add("a")));
      }
      for (int i = 0; i < 3; i++) {
        tasks.add(reads.submit("b", () -> order.add("b")));
      }
      release.countDown();
      CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
      assertThat(order).containsExactly("a", "b", "a", "b", "a", "b");
    }
  }

  @Test
  void aFailedTaskFailsItsFutureAndFreesItsWorker() throws Exception {
    try (FairReads reads = new FairReads(1, 1)) {
      CompletableFuture<Object> failed = reads.submit("a", () -> {
        throw new IllegalArgumentException("bad query");
      });
      assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .hasRootCauseMessage("bad query");
      assertThat(reads.submit("a", () -> 1).get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }
  }

  @Test
  void aTaskThatFindsNoTurnBeforeItsTimeFailsBusyAndNeverRuns() throws Exception {
    try (FairReads reads = new FairReads(1, 1)) {
      CountDownLatch release = new CountDownLatch(1);
      reads.submit("every tenant", () -> release.await(10, TimeUnit.SECONDS));
      List<String> ran = Collections.synchronizedList(new ArrayList<>());
      CompletableFuture<Boolean> late = reads.submit("every tenant", () -> ran.add("late"),
          System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
      assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(FairReads.Busy.class)
          .hasMessageContaining("every tenant (1 running, 0 more waiting)");
      assertThat(reads.waiting()).isZero();
      release.countDown();
      assertThat(reads.submit("other", () -> ran.add("other")).get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(ran).containsExactly("other");
    }
  }

  @Test
  void whileTheServerWritesAPartysReadsKeepToItsShareOfTheCpuAndOthersAreNotHeld() throws Exception {
    double share = 0.25;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    try (FairReads reads = new FairReads(4, 2, share)) {
      writer.scheduleAtFixedRate(reads::noteWrite, 0, 100, TimeUnit.MILLISECONDS);
      long started = System.nanoTime();
      // Each task: {start, end, CPU time}, in nanoseconds.
      List<long[]> runs = Collections.synchronizedList(new ArrayList<>());
      List<CompletableFuture<Boolean>> heavy = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        heavy.add(reads.submit("every tenant", () -> {
          long start = System.nanoTime();
          long cpuFrom = threads.getCurrentThreadCpuTime();
          while (threads.getCurrentThreadCpuTime() - cpuFrom < TimeUnit.MILLISECONDS.toNanos(100)) {
            Thread.onSpinWait();
          }
          return runs.add(new long[] {start, System.nanoTime(), threads.getCurrentThreadCpuTime() - cpuFrom});
        }));
      }
      Thread.sleep(400);
      CompletableFuture<Long> other = reads.submit("tenant 7", System::nanoTime);
      long otherStarted = other.get(10, TimeUnit.SECONDS);
      CompletableFuture.allOf(heavy.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      // The other party ran while the first still waited on its account.
      assertThat(otherStarted).isLessThan(runs.stream().mapToLong(run -> run[0]).max().orElseThrow());
      // No task of the party started while what its finished tasks had used was more than its burst and its share
      // of the time since the first began.
      for (long[] run : runs) {
        long usedBefore = runs.stream().filter(done -> done[1] <= run[0]).mapToLong(done -> done[2]).sum();
        assertThat(usedBefore).isLessThanOrEqualTo(
            FairReads.BURST_NANOS + (long) (share * (run[0] - started)) + TimeUnit.MILLISECONDS.toNanos(20));
      }
      long cpu = runs.stream().mapToLong(run -> run[2]).sum();
      assertThat(cpu).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(800));
    } finally {
      writer.shutdownNow();
    }
  }
}
