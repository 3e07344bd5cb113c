package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The shard sink's checkpointed state: the changes it had taken but no shard had acknowledged at the checkpoint, in
 * lane order, and the parts of the lanes' spill files that held more of them ({@link LaneSpill}), named rather than
 * copied (a stalled shard's spill may hold gigabytes). The checkpoint does not wait for them (a slow shard would hold
 * every checkpoint, and with it every other shard's writes); after a restore they are sent again first, the spilled
 * ones after the others, and the shards' version check ignores the ones that had arrived after all.
 */
record PendingChanges(List<RoutedChange> changes, List<LaneSpill.Range> spilled) {
  /**
   * Version 3: a count, then each change ({@link RoutedChangeRecords}); a count, then each spill range's file, position
   * and number of changes. Version 2 had no ranges; version 1 also had the lane after the shard.
   */
  static final class Serializer implements SimpleVersionedSerializer<PendingChanges> {
    @Override
    public int getVersion() {
      return 3;
    }

    @Override
    public byte[] serialize(PendingChanges pending) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(pending.changes().size());
        for (RoutedChange routed : pending.changes()) {
          RoutedChangeRecords.write(out, routed);
        }
        out.writeInt(pending.spilled().size());
        for (LaneSpill.Range range : pending.spilled()) {
          out.writeUTF(range.file());
          out.writeLong(range.position());
          out.writeLong(range.count());
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public PendingChanges deserialize(int version, byte[] serialized) throws IOException {
      if (version < 1 || version > 3) {
        throw new IOException("shard sink state version " + version + " is unknown; this build reads versions 1"
            + " to 3");
      }
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        int count = in.readInt();
        List<RoutedChange> changes = new ArrayList<>(Math.min(count, 1 << 16));
        for (int i = 0; i < count; i++) {
          changes.add(RoutedChangeRecords.read(in, version == 1));
        }
        List<LaneSpill.Range> spilled = new ArrayList<>();
        if (version >= 3) {
          int ranges = in.readInt();
          for (int i = 0; i < ranges; i++) {
            spilled.add(new LaneSpill.Range(in.readUTF(), in.readLong(), in.readLong()));
          }
        }
        return new PendingChanges(changes, spilled);
      }
    }
  }
}
