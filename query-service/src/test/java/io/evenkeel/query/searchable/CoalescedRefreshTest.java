package io.evenkeel.query.searchable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many callers waiting for their writes share refreshes, and none returns before a refresh that started after it
 * asked has finished; a failed refresh fails its runner and is tried again by the next waiter.
 */
class CoalescedRefreshTest {
  @Test
  void callersShareRefreshesThatStartAfterTheyAsk() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    AtomicLong lastStart = new AtomicLong();
    CoalescedRefresh refresh = new CoalescedRefresh(() -> {
      runs.incrementAndGet();
      lastStart.set(System.nanoTime());
      sleep(50);
    });
    // A thread per caller, all asking at once: each asks during the first refresh or before the second starts.
    ExecutorService callers = Executors.newFixedThreadPool(64);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<long[]>> calls = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        calls.add(callers.submit(() -> {
          go.await();
          long asked = System.nanoTime();
          refresh.await();
          return new long[] {asked, lastStart.get()};
        }));
      }
      go.countDown();
      for (Future<long[]> call : calls) {
        long[] times = call.get(10, TimeUnit.SECONDS);
        assertThat(times[1]).as("the last refresh started after the caller asked").isGreaterThanOrEqualTo(times[0]);
      }
      // Two refreshes serve them all; a busy machine starting the threads late may need a few more, never one each.
      assertThat(runs.get()).as("64 callers, refreshes of 50 ms one after another").isBetween(1, 8);
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void aFailedRefreshFailsItsRunnerAndIsTriedAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CoalescedRefresh refresh = new CoalescedRefresh(() -> {
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("2 of 8 shards failed");
      }
    });
    assertThatThrownBy(refresh::await).hasMessageContaining("2 of 8 shards failed");
    refresh.await();
    assertThat(runs.get()).isEqualTo(2);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
