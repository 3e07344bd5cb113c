package io.evenkeel.shard.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
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
}
