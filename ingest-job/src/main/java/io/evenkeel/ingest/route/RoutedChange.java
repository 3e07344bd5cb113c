package io.evenkeel.ingest.route;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;

/**
 * A change with the shard the rules give its row, and the offsets it stands for in its Kafka partition: first..last, more than one when changes of the row were folded
 * into it (or dropped as not newer), so the sink can say up to which offset every change is written. {@code encoded}
 * is the change's single-object bytes as they arrived, while the change is the one that arrived (null once folded):
 * the sink copies its body into the batch instead of encoding the change again.
 */
public class RoutedChange {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  public int shard;
  public TransactionLogChange change;
  public byte[] encoded;
  public String topic;
  public int partition;
  public long firstOffset;
  public long lastOffset;

  public RoutedChange() {}

  public RoutedChange(int shard, TransactionLogChange change, byte[] encoded, String topic, int partition,
      long firstOffset, long lastOffset) {
    this.shard = shard;
    this.change = change;
    this.encoded = encoded;
    this.topic = topic;
    this.partition = partition;
    this.firstOffset = firstOffset;
    this.lastOffset = lastOffset;
  }

  /** The change's single-object encoding: as it arrived, or (a folded change) encoded at the first call. */
  public byte[] bytes() {
    if (encoded == null) {
      encoded = CHANGES.encode(change);
    }
    return encoded;
  }

  /** {@code folded} in place of this change, standing also for the partition's offsets up to {@code offset}. */
  public RoutedChange through(TransactionLogChange folded, long offset) {
    return new RoutedChange(shard, folded, folded == change ? encoded : null, topic, partition, firstOffset,
        Math.max(lastOffset, offset));
  }
}
