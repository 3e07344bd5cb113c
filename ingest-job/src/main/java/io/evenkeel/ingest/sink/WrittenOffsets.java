package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Per Kafka partition, the offset up to which every change is written: acknowledged by its shard (in the translog and
 * applied to the index), folded into a change that is, or dropped as not newer. A record that was no change (a dead
 * letter) counts as written once a later change of its partition is.
 *
 * <p>It relies on the order in which changes reach the sink: a partition's changes come through one subtask of the
 * chain, and the fold sends its whole window at once, in the order each row first arrived; so along that order the
 * changes' first offsets increase, and everything before a change's first offset came before it. The changes whose
 * acknowledgement is awaited form a queue per partition: the written offset is just below the first offset of the
 * oldest unacknowledged one, or the last offset seen when none is.
 *
 * <p>NOTE: {@link #track} and {@link #advance} run on the task thread; {@link Pending#acknowledge} on any thread.
 */
final class WrittenOffsets {
  /** One change awaiting its shard's acknowledgement. */
  static final class Pending {
    private final long firstOffset;
    private volatile boolean acknowledged;

    private Pending(long firstOffset) {
      this.firstOffset = firstOffset;
    }

    void acknowledge() {
      acknowledged = true;
    }
  }

  private static final class Partition {
    final ArrayDeque<Pending> pending = new ArrayDeque<>();
    long lastOffset = -1;
    long published = -1;
  }

  private final Map<TopicPartition, Partition> partitions = new HashMap<>();

  /** Registers a change handed to a lane; acknowledge the returned token once its shard has. */
  Pending track(RoutedChange change) {
    Partition partition = partitions.computeIfAbsent(new TopicPartition(change.topic, change.partition),
        p -> new Partition());
    partition.lastOffset = Math.max(partition.lastOffset, change.lastOffset);
    Pending pending = new Pending(change.firstOffset);
    partition.pending.add(pending);
    return pending;
  }

  /**
   * The partitions whose written offset moved since the last call, each with the next offset to write (Kafka's
   * convention for committed offsets: one past the last written).
   */
  Map<TopicPartition, Long> advance() {
    Map<TopicPartition, Long> moved = new HashMap<>();
    partitions.forEach((topicPartition, partition) -> {
      while (!partition.pending.isEmpty() && partition.pending.peek().acknowledged) {
        partition.pending.poll();
      }
      long next = partition.pending.isEmpty() ? partition.lastOffset + 1 : partition.pending.peek().firstOffset;
      if (next > partition.published) {
        partition.published = next;
        moved.put(topicPartition, next);
      }
    });
    return moved;
  }
}
