package io.evenkeel.benchmarks.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Which pending probes the watch asks for in each poll. */
class SearchableWatchTest {
  private static ConcurrentSkipListMap<Long, Long> pending(long... rowIds) {
    ConcurrentSkipListMap<Long, Long> pending = new ConcurrentSkipListMap<>();
    LongStream.of(rowIds).forEach(id -> pending.put(id, 0L));
    return pending;
  }

  @Test
  void withFewerPendingThanAQueryHoldsEveryProbeIsAskedEveryPoll() {
    // Probes 1..3 were asked last poll (cursor 3) and are not found yet; 4 and 5 came since.
    assertThat(SearchableWatch.nextBatch(pending(1, 2, 3, 4, 5), 3, 100)).containsExactly(4L, 5L, 1L, 2L, 3L);
    assertThat(SearchableWatch.nextBatch(pending(1, 2, 3), 3, 100)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void withMorePendingThanAQueryHoldsTheProbesAreAskedInTurn() {
    ConcurrentSkipListMap<Long, Long> pending = pending(1, 2, 3, 4, 5, 6, 7);
    assertThat(SearchableWatch.nextBatch(pending, Long.MIN_VALUE, 3)).containsExactly(1L, 2L, 3L);
    assertThat(SearchableWatch.nextBatch(pending, 3, 3)).containsExactly(4L, 5L, 6L);
    assertThat(SearchableWatch.nextBatch(pending, 6, 3)).containsExactly(7L, 1L, 2L);
  }

  @Test
  void nothingPendingAsksForNothing() {
    assertThat(SearchableWatch.nextBatch(pending(), 42, 3)).isEmpty();
  }
}
