package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.apache.avro.io.BinaryData;

/**
 * Encodes a shard write batch, copying the Avro body of each change that arrived from Kafka in the current schema
 * instead of encoding the change again: re-encoding every change was the job's largest cost.
 *
 * <p>Avro's binary form of a record is its fields in order, and {@code changes} is the batch's last field: so the batch
 * is Avro's own encoding of it without changes, less the empty array's closing byte, then the number of changes, each
 * change's body and the array's closing byte. {@code WriteBatchEncoderTest} checks that this is byte for byte what
 * Avro writes, so a new field in either schema cannot slip past.
 */
final class WriteBatchEncoder {
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  private WriteBatchEncoder() {}

  /** The single-object encoding of {@code batch} (whose changes must be empty) with {@code changes} as its changes. */
  static byte[] encode(ShardWriteBatch batch, List<RoutedChange> changes) {
    if (!batch.getChanges().isEmpty()) {
      throw new IllegalArgumentException("the batch must come without its changes");
    }
    byte[] head = BATCHES.encode(batch);
    ByteArrayOutputStream out = new ByteArrayOutputStream(head.length + 16 + changes.size() * 256);
    out.write(head, 0, head.length - 1);
    if (!changes.isEmpty()) {
      byte[] count = new byte[10];
      out.write(count, 0, BinaryData.encodeLong(changes.size(), count, 0));
      for (RoutedChange routed : changes) {
        byte[] bytes = routed.bytes();
        int header = CHANGES.ownHeaderLength(bytes);
        if (header == 0) {
          bytes = CHANGES.encode(routed.change);
          header = CHANGES.ownHeaderLength(bytes);
        }
        out.write(bytes, header, bytes.length - header);
      }
    }
    out.write(0);
    return out.toByteArray();
  }
}
