package io.evenkeel.ingest.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer.PartitionOffsetsRetriever;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class WrittenOffsetsInitializerTest {
  private static final TopicPartition WRITTEN = new TopicPartition("transaction-logs", 0);
  private static final TopicPartition UNWRITTEN = new TopicPartition("transaction-logs", 1);

  /** Each partition's earliest offset is 5, its source commit 100 (ahead of what the shards acknowledged). */
  private static final PartitionOffsetsRetriever TOPIC = new PartitionOffsetsRetriever() {
    @Override
    public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
      return partitions.stream().collect(Collectors.toMap(p -> p, p -> 100L));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
      return partitions.stream().collect(Collectors.toMap(p -> p, p -> 200L));
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
      return partitions.stream().collect(Collectors.toMap(p -> p, p -> 5L));
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
      throw new UnsupportedOperationException();
    }
  };

  @Test
  void aPartitionStartsAtItsWrittenOffsetOrElseItsEarliestNeverItsCommittedOne() {
    Map<TopicPartition, Long> offsets = new WrittenOffsetsInitializer(Map.of(WRITTEN, 42L))
        .getPartitionOffsets(List.of(WRITTEN, UNWRITTEN), TOPIC);
    assertThat(offsets).containsExactlyInAnyOrderEntriesOf(Map.of(WRITTEN, 42L, UNWRITTEN, 5L));
  }
}
