package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaneSpillTest {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @TempDir
  Path root;

  private static RoutedChange change(long row) {
    TransactionLogChange change = TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(7)
        .setRowId(row).setCreatedTime(1_700_000_000_000L).setModifiedTime(1_700_000_000_000L + row).setVersion(1)
        .setTitle("red shoes " + row).build();
    return new RoutedChange(3, change, CHANGES.encode(change), "changes", 1, 100 + row, 100 + row);
  }

  private static List<Long> rows(List<RoutedChange> changes) {
    return changes.stream().map(c -> c.change.getRowId()).toList();
  }

  private List<Path> files() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void changesComeBackInTheOrderTheyWentAcrossFilesWhileBothAppendAndReadGoOn() throws Exception {
    SpillFiles spills = new SpillFiles(root, 0, false);
    LaneSpill spill = new LaneSpill(spills, "shard-3", 2_000);
    List<RoutedChange> read = new ArrayList<>();
    long next = 0;
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < 30; i++) {
        spill.append(change(next++));
      }
      for (int i = 0; i < 20; i++) {
        read.add(spill.poll());
      }
    }
    while (!spill.isEmpty()) {
      read.add(spill.poll());
    }
    assertThat(rows(read)).containsExactlyElementsOf(Stream.iterate(0L, r -> r + 1).limit(next).toList());
    RoutedChange last = read.get(read.size() - 1);
    assertThat(last.topic).isEqualTo("changes");
    assertThat(last.partition).isEqualTo(1);
    assertThat(last.firstOffset).isEqualTo(100 + next - 1);
    assertThat(last.shard).isEqualTo(3);
    assertThat(spills.bytes()).isZero();
  }

  @Test
  void aCheckpointNamesTheUnreadPartsAndARestoreReadsExactlyThose() throws Exception {
    SpillFiles spills = new SpillFiles(root, 0, false);
    LaneSpill spill = new LaneSpill(spills, "shard-3", 2_000);
    for (long row = 0; row < 100; row++) {
      spill.append(change(row));
    }
    for (int i = 0; i < 37; i++) {
      spill.poll();
    }
    List<LaneSpill.Range> ranges = spill.ranges();
    assertThat(ranges).hasSizeGreaterThan(1);
    assertThat(ranges.stream().mapToLong(LaneSpill.Range::count).sum()).isEqualTo(63);
    List<RoutedChange> restored = new ArrayList<>();
    for (LaneSpill.Range range : ranges) {
      LaneSpill.read(range, restored::add);
    }
    assertThat(rows(restored)).containsExactlyElementsOf(Stream.iterate(37L, r -> r + 1).limit(63).toList());
  }

  @Test
  void filesReadBackAreDeletedThreeCheckpointsLaterAndEverythingIsPrivate() throws Exception {
    SpillFiles spills = new SpillFiles(root, 0, false);
    LaneSpill spill = new LaneSpill(spills, "shard-3", 2_000);
    for (long row = 0; row < 100; row++) {
      spill.append(change(row));
    }
    int files = files().size();
    assertThat(files).isGreaterThan(2);
    for (Path file : files()) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
          .isEqualTo("rwx------");
    }
    while (!spill.isEmpty()) {
      spill.poll();
    }
    spills.snapshotTaken();
    spills.snapshotTaken();
    assertThat(files()).as("a restore from the last checkpoints may read them").hasSize(files);
    spills.snapshotTaken();
    assertThat(files()).isEmpty();
  }

  @Test
  void aFreshWriterDeletesWhatEarlierWritersOfItsSubtaskLeftAndARestoredOneKeepsIt() throws Exception {
    LaneSpill left = new LaneSpill(new SpillFiles(root, 0, false), "shard-0");
    left.append(change(1));
    left.ranges();
    LaneSpill other = new LaneSpill(new SpillFiles(root, 1, false), "shard-0");
    other.append(change(2));
    other.ranges();
    new SpillFiles(root, 0, true);
    assertThat(files()).hasSize(2);
    new SpillFiles(root, 0, false);
    assertThat(files()).as("subtask 1's file only").hasSize(1);
  }

  @Test
  void aRestoreWhoseFileIsGoneFailsNamingIt() {
    LaneSpill.Range range = new LaneSpill.Range(root.resolve("gone.spill").toString(), 0, 5);
    assertThatThrownBy(() -> LaneSpill.read(range, change -> {})).isInstanceOf(IOException.class)
        .hasMessageContaining("gone.spill").hasMessageContaining("5 spilled changes");
  }
}
