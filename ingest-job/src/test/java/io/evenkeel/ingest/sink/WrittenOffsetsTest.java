package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class WrittenOffsetsTest {
  private static final TopicPartition P0 = new TopicPartition("changes", 0);
  private static final TopicPartition P1 = new TopicPartition("changes", 1);

  private final WrittenOffsets written = new WrittenOffsets();

  private WrittenOffsets.Pending track(TopicPartition partition, long first, long last) {
    return written.track(new RoutedChange(0, null, null, partition.topic(), partition.partition(), first, last));
  }

  @Test
  void theWrittenOffsetStopsBelowTheOldestUnacknowledgedChange() {
    WrittenOffsets.Pending[] changes = new WrittenOffsets.Pending[5];
    for (int offset = 0; offset < 5; offset++) {
      changes[offset] = track(P0, offset, offset);
    }
    changes[1].acknowledge();
    changes[2].acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 0L));
    changes[0].acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 3L));
    assertThat(written.advance()).as("nothing moved").isEmpty();
    changes[4].acknowledge();
    changes[3].acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 5L));
  }

  @Test
  void aFoldedChangeHoldsBackEveryOffsetFromItsFirstAndCoversUpToItsLast() {
    // Row A arrived at 0 and again at 3 (folded: 0..3); rows B and C at 1 and 2; the window is sent in that order.
    WrittenOffsets.Pending a = track(P0, 0, 3);
    WrittenOffsets.Pending b = track(P0, 1, 1);
    WrittenOffsets.Pending c = track(P0, 2, 2);
    b.acknowledge();
    c.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 0L));
    a.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 4L));
  }

  @Test
  void partitionsAdvanceOnTheirOwn() {
    WrittenOffsets.Pending first = track(P0, 10, 10);
    WrittenOffsets.Pending second = track(P1, 7, 7);
    track(P1, 8, 8);
    second.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 10L, P1, 8L));
    first.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 11L));
  }

  @Test
  void aChangeReadBackFromASpillIsTrackedLateBehindTheHoldAtTheFirstSpilled() {
    WrittenOffsets.Pending inMemory = track(P0, 0, 0);
    WrittenOffsets.Pending hold = track(P0, 1, 1); // the first change spilled
    written.spilled(new RoutedChange(0, null, null, P0.topic(), P0.partition(), 2, 2));
    WrittenOffsets.Pending later = track(P0, 3, 3); // another shard's, after the spilled ones
    inMemory.acknowledge();
    later.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 1L));
    WrittenOffsets.Pending first = track(P0, 1, 1); // read back
    WrittenOffsets.Pending second = track(P0, 2, 2);
    hold.acknowledge(); // the spill is empty
    assertThat(written.advance()).as("the read-back changes still hold it").isEmpty();
    first.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 2L));
    second.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 4L));
  }

  @Test
  void acknowledgedChangesAboveAStalledOneAreNotKept() {
    WrittenOffsets.Pending stalled = track(P0, 0, 0);
    for (long offset = 1; offset <= 1_000_000; offset++) {
      track(P0, offset, offset).acknowledge();
      if (offset % 10_000 == 0) {
        assertThat(written.advance()).as("held at the stalled change").isIn(Map.of(), Map.of(P0, 0L));
      }
    }
    assertThat(written.awaited()).isLessThan(3_000);
    stalled.acknowledge();
    assertThat(written.advance()).isEqualTo(Map.of(P0, 1_000_001L));
  }
}
