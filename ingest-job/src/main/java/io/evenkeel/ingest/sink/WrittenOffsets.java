package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import org.apache.kafka.common.TopicPartition;

/**
 * Per Kafka partition, the offset up to which every change is written: acknowledged by its shard (in the translog and
 * applied to the index), folded into a change that is, or dropped as not newer. A record that was no change (a dead
 * letter) counts as written once a later change of its partition is.
 *
 * <p>It relies on the order in which changes reach the sink: a partition's changes come through one subtask of the
 * chain, and the fold sends its whole window at once, in the order each row first arrived; so along that order the
 * changes' first offsets increase, and everything before a change's first offset came before it. The written offset
 * is just below the smallest first offset of the changes whose acknowledgement is awaited, or one past the last
 * offset seen when none is. A change may be tracked late (read back from a lane's spill) as long as a token at or
 * below its first offset was held since it arrived ({@link LaneSpill}'s hold).
 *
 * <p>Memory: only the awaited changes are kept, plus the acknowledged ones not yet swept out, at most as many again;
 * a stalled shard's backlog does not keep every other shard's acknowledged changes.
 *
 * <p>NOTE: {@link #track}, {@link #seen} and {@link #advance} run on the task thread; {@link Pending#acknowledge} on
 * any thread.
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

  private static final int MIN_SWEEP = 1_024;

  private static final class Partition {
    final PriorityQueue<Pending> pending = new PriorityQueue<>(Comparator.comparingLong(p -> p.firstOffset));
    int sweepAt = MIN_SWEEP;
    long lastOffset = -1;
    long published = -1;
  }

  private final Map<TopicPartition, Partition> partitions = new HashMap<>();

  /** Registers a change handed to a lane; acknowledge the returned token once its shard has. */
  Pending track(RoutedChange change) {
    Partition partition = seen(change);
    Pending pending = new Pending(change.firstOffset);
    partition.pending.add(pending);
    return pending;
  }

  /** Notes a change's offsets without awaiting it: a change spilled behind a token that holds its partition. */
  private Partition seen(RoutedChange change) {
    Partition partition = partitions.computeIfAbsent(new TopicPartition(change.topic, change.partition),
        p -> new Partition());
    partition.lastOffset = Math.max(partition.lastOffset, change.lastOffset);
    return partition;
  }

  /** Notes a spilled change's offsets: see {@link #seen}. */
  void spilled(RoutedChange change) {
    seen(change);
  }

  /**
   * The partitions whose written offset moved since the last call, each with the next offset to write (Kafka's
   * convention for committed offsets: one past the last written).
   */
  Map<TopicPartition, Long> advance() {
    Map<TopicPartition, Long> moved = new HashMap<>();
    partitions.forEach((topicPartition, partition) -> {
      PriorityQueue<Pending> pending = partition.pending;
      while (!pending.isEmpty() && pending.peek().acknowledged) {
        pending.poll();
      }
      if (pending.size() >= partition.sweepAt) {
        // An old change awaited (a stalled shard's) keeps the acknowledged ones above it: sweep them out.
        pending.removeIf(p -> p.acknowledged);
        partition.sweepAt = Math.max(MIN_SWEEP, 2 * pending.size());
      }
      long next = pending.isEmpty() ? partition.lastOffset + 1 : pending.peek().firstOffset;
      if (next > partition.published) {
        partition.published = next;
        moved.put(topicPartition, next);
      }
    });
    return moved;
  }

  /** How many tokens are kept, acknowledged or not (for tests). */
  int awaited() {
    return partitions.values().stream().mapToInt(p -> p.pending.size()).sum();
  }
}
