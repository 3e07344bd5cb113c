package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * Sized first and written into one array: a checkpoint taken during a load can hold tens of megabytes of
     * changes, and a growing stream written field by field copied them several times over on the task thread.
     */
    @Override
    public byte[] serialize(PendingChanges pending) throws IOException {
      Map<String, byte[]> topics = new HashMap<>();
      long size = 4 + 4;
      for (RoutedChange routed : pending.changes()) {
        size += RoutedChangeRecords.size(routed, topics.computeIfAbsent(routed.topic, RoutedChangeRecords::utf));
      }
      List<byte[]> files = new ArrayList<>(pending.spilled().size());
      for (LaneSpill.Range range : pending.spilled()) {
        files.add(RoutedChangeRecords.utf(range.file()));
        size += files.get(files.size() - 1).length + 8 + 8;
      }
      if (size > Integer.MAX_VALUE - 64) {
        throw new IOException("the shard sink's unacknowledged changes take " + size + " bytes, more than one"
            + " checkpoint state can hold; lower --sink-lane-buffer-bytes");
      }
      ByteBuffer out = ByteBuffer.allocate((int) size);
      out.putInt(pending.changes().size());
      for (RoutedChange routed : pending.changes()) {
        RoutedChangeRecords.write(out, routed, topics.get(routed.topic));
      }
      out.putInt(pending.spilled().size());
      for (int i = 0; i < files.size(); i++) {
        LaneSpill.Range range = pending.spilled().get(i);
        out.put(files.get(i)).putLong(range.position()).putLong(range.count());
      }
      return out.array();
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
