package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingChangesTest {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);
  private final PendingChanges.Serializer serializer = new PendingChanges.Serializer();

  private static TransactionLogChange change(long row, String title) {
    return TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(7).setRowId(row)
        .setCreatedTime(1_700_000_000_000L).setModifiedTime(1_700_000_000_000L + row).setVersion(1).setTitle(title)
        .build();
  }

  private static PendingChanges pending() {
    TransactionLogChange arrived = change(1, "red shoes");
    return new PendingChanges(List.of(
        new RoutedChange(3, arrived, CHANGES.encode(arrived), "changes", 1, 100, 100),
        // A folded change has no bytes until asked for them; a topic with a non-ASCII name.
        new RoutedChange(5, change(2, "blue hat ü"), null, "changes-ü", 0, 7, 9),
        new RoutedChange(3, change(3, ""), null, "changes", 1, 101, 101)),
        List.of(new LaneSpill.Range("/spill/lane-3-normal-0001", 4096, 12)));
  }

  /** Version 3 as DataOutput writes it, the form checkpoints of earlier builds hold. */
  private static byte[] asDataOutputWritesIt(PendingChanges pending) throws IOException {
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

  @Test
  void writesVersionThreeByteForByteAsTheStreamFormDid() throws IOException {
    PendingChanges pending = pending();
    assertThat(serializer.getVersion()).isEqualTo(3);
    assertThat(serializer.serialize(pending)).isEqualTo(asDataOutputWritesIt(pending));
  }

  @Test
  void readsBackWhatItWrote() throws IOException {
    PendingChanges back = serializer.deserialize(3, serializer.serialize(pending()));
    assertThat(back.changes()).extracting(c -> c.shard, c -> c.change, c -> c.topic, c -> c.partition,
            c -> c.firstOffset, c -> c.lastOffset)
        .containsExactly(
            tuple(3, change(1, "red shoes"), "changes", 1, 100L, 100L),
            tuple(5, change(2, "blue hat ü"), "changes-ü", 0, 7L, 9L),
            tuple(3, change(3, ""), "changes", 1, 101L, 101L));
    assertThat(back.spilled()).containsExactly(new LaneSpill.Range("/spill/lane-3-normal-0001", 4096, 12));
  }

  @Test
  void nothingPendingIsTwoCounts() throws IOException {
    PendingChanges none = new PendingChanges(List.of(), List.of());
    assertThat(serializer.serialize(none)).hasSize(8);
    assertThat(serializer.deserialize(3, serializer.serialize(none))).isEqualTo(none);
  }
}
