package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The shard sink's checkpointed state: the changes it had taken but no shard had acknowledged at the checkpoint, in
 * lane order. The checkpoint does not wait for them (a slow shard would hold every checkpoint, and with it every
 * other shard's writes); after a restore they are sent again first, and the shards' version check ignores the ones
 * that had arrived after all.
 */
record PendingChanges(List<RoutedChange> changes) {
  /**
   * Version 2: a count, then per change its shard, single-object bytes, topic, partition and offsets. Version 1 had
   * the lane after the shard; the sink now chooses lanes when it takes the changes back.
   */
  static final class Serializer implements SimpleVersionedSerializer<PendingChanges> {
    private static final SingleObjectCodec<TransactionLogChange> CHANGES =
        SingleObjectCodec.of(TransactionLogChange.class);

    @Override
    public int getVersion() {
      return 2;
    }

    @Override
    public byte[] serialize(PendingChanges pending) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(pending.changes().size());
        for (RoutedChange routed : pending.changes()) {
          byte[] encoded = routed.bytes();
          out.writeInt(routed.shard);
          out.writeInt(encoded.length);
          out.write(encoded);
          out.writeUTF(routed.topic);
          out.writeInt(routed.partition);
          out.writeLong(routed.firstOffset);
          out.writeLong(routed.lastOffset);
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public PendingChanges deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1 && version != 2) {
        throw new IOException("shard sink state version " + version + " is unknown; this build reads versions 1"
            + " and 2");
      }
      try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized))) {
        int count = in.readInt();
        List<RoutedChange> changes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          int shard = in.readInt();
          if (version == 1) {
            in.readBoolean(); // the lane
          }
          byte[] encoded = in.readNBytes(in.readInt());
          TransactionLogChange change = CHANGES.decode(encoded);
          changes.add(new RoutedChange(shard, change, encoded, in.readUTF(), in.readInt(), in.readLong(),
              in.readLong()));
        }
        return new PendingChanges(changes);
      } catch (MalformedRecordException e) {
        throw new IOException("the shard sink's checkpointed changes do not decode: " + e.getMessage(), e);
      }
    }
  }
}
