package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * How the sink writes a routed change outside memory (its checkpointed state, a lane's spill): its shard, its
 * single-object bytes, topic, partition and offsets.
 */
final class RoutedChangeRecords {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  /** The shard servers' request limit: no change the sink kept can be larger. */
  private static final int MAX_CHANGE_BYTES = 64 << 20;

  private RoutedChangeRecords() {}

  static void write(DataOutput out, RoutedChange routed) throws IOException {
    byte[] encoded = routed.bytes();
    out.writeInt(routed.shard);
    out.writeInt(encoded.length);
    out.write(encoded);
    out.writeUTF(routed.topic);
    out.writeInt(routed.partition);
    out.writeLong(routed.firstOffset);
    out.writeLong(routed.lastOffset);
  }

  /** How many bytes {@link #write} writes for {@code routed}, whose topic is {@code topic} ({@link #utf}). */
  static long size(RoutedChange routed, byte[] topic) {
    return 4 + 4 + routed.bytes().length + topic.length + 4 + 8 + 8;
  }

  /** What {@link #write} writes, into {@code out}, which has room for it; {@code topic} is {@link #utf}'s. */
  static void write(ByteBuffer out, RoutedChange routed, byte[] topic) {
    byte[] encoded = routed.bytes();
    out.putInt(routed.shard).putInt(encoded.length).put(encoded).put(topic).putInt(routed.partition)
        .putLong(routed.firstOffset).putLong(routed.lastOffset);
  }

  /** {@code value} as {@link DataOutput#writeUTF} writes it, its length first. */
  static byte[] utf(String value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(2 + value.length());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // over 65,535 bytes: no topic name or spill file name is
    }
    return bytes.toByteArray();
  }

  static RoutedChange read(DataInput in) throws IOException {
    return read(in, false);
  }

  /** With {@code laneAfterShard}: the checkpoint format of version 1, which had the lane after the shard. */
  static RoutedChange read(DataInput in, boolean laneAfterShard) throws IOException {
    int shard = in.readInt();
    if (laneAfterShard) {
      in.readBoolean();
    }
    int length = in.readInt();
    if (length < 0 || length > MAX_CHANGE_BYTES) {
      throw new IOException("a change the shard sink kept claims " + length + " bytes: the record is corrupt");
    }
    byte[] encoded = new byte[length];
    in.readFully(encoded);
    TransactionLogChange change;
    try {
      change = CHANGES.decode(encoded);
    } catch (MalformedRecordException e) {
      throw new IOException("a change the shard sink kept does not decode: " + e.getMessage(), e);
    }
    return new RoutedChange(shard, change, encoded, in.readUTF(), in.readInt(), in.readLong(), in.readLong());
  }
}
