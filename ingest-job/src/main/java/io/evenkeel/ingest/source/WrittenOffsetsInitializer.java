package io.evenkeel.ingest.source;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a job started with {@code --start-offsets committed} reads each partition from: its written offset (the shard
 * sink publishes it: everything before it acknowledged by a shard, folded or dead-lettered), and for a partition
 * without one, its earliest offset. Never the source's own committed offset (Flink's {@code
 * OffsetsInitializer.offsets} falls back to it), which a checkpoint moves while the sink still holds changes no shard
 * has acknowledged: starting there would skip them. Replaying from the earliest costs time, never rows (versions make
 * a replayed change harmless).
 */
public final class WrittenOffsetsInitializer implements OffsetsInitializer {
  private static final long serialVersionUID = 1L;

  private final HashMap<TopicPartition, Long> written;

  public WrittenOffsetsInitializer(Map<TopicPartition, Long> written) {
    this.written = new HashMap<>(written);
  }

  @Override
  public Map<TopicPartition, Long> getPartitionOffsets(Collection<TopicPartition> partitions,
      PartitionOffsetsRetriever retriever) {
    List<TopicPartition> without = partitions.stream().filter(p -> !written.containsKey(p)).toList();
    Map<TopicPartition, Long> offsets = new HashMap<>(without.isEmpty() ? Map.of()
        : retriever.beginningOffsets(without));
    partitions.stream().filter(written::containsKey).forEach(p -> offsets.put(p, written.get(p)));
    return offsets;
  }

  /** A written offset the topic no longer holds (its retention deleted it): from the earliest it holds. */
  @Override
  public OffsetResetStrategy getAutoOffsetResetStrategy() {
    return OffsetResetStrategy.EARLIEST;
  }
}
