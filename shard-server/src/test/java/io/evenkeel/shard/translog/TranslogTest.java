package io.evenkeel.shard.translog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TranslogTest {
  @TempDir Path dir;

  private static byte[] payload(int i) {
    return ("batch-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> replayAll(Translog translog, long fromGeneration) throws IOException {
    List<String> seen = new ArrayList<>();
    translog.replay(fromGeneration, r -> seen.add(r.firstSeqNo() + ":" + new String(r.payload(), StandardCharsets.UTF_8)));
    return seen;
  }

  @Test
  void recordsSurviveReopeningInOrder() throws IOException {
    try (Translog translog = Translog.open(dir)) {
      for (int i = 0; i < 5; i++) {
        translog.append(i * 10L, payload(i));
      }
      translog.sync();
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(replayAll(translog, 1)).containsExactly("0:batch-0", "10:batch-1", "20:batch-2", "30:batch-3",
          "40:batch-4");
      translog.append(50, payload(5));
      assertThat(replayAll(translog, 1)).hasSize(6).endsWith("50:batch-5");
    }
  }

  @Test
  void tornLastRecordIsDroppedAndAppendsContinueAfterTheIntactOnes() throws IOException {
    long sizeAfterTwo;
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
      translog.append(2, payload(2));
      sizeAfterTwo = translog.sizeInBytes();
      translog.append(3, payload(3));
    }
    // A crash in the middle of the third append: only part of it reached the file.
    try (FileChannel file = FileChannel.open(dir.resolve("translog-1.tlog"), StandardOpenOption.WRITE)) {
      file.truncate(sizeAfterTwo + 7);
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(translog.sizeInBytes()).isEqualTo(sizeAfterTwo);
      translog.append(4, payload(4));
      assertThat(replayAll(translog, 1)).containsExactly("1:batch-1", "2:batch-2", "4:batch-4");
    }
  }

  @Test
  void lastRecordWithABadChecksumIsDropped() throws IOException {
    long sizeAfterOne;
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
      sizeAfterOne = translog.sizeInBytes();
      translog.append(2, payload(2));
    }
    try (FileChannel file = FileChannel.open(dir.resolve("translog-1.tlog"), StandardOpenOption.WRITE)) {
      file.write(ByteBuffer.wrap(new byte[] {'X'}), sizeAfterOne + 14); // inside the payload of record 2
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(replayAll(translog, 1)).containsExactly("1:batch-1");
    }
  }

  @Test
  void zeroFilledTailIsNotMistakenForRecords() throws IOException {
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
    }
    try (FileChannel file = FileChannel.open(dir.resolve("translog-1.tlog"), StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      file.write(ByteBuffer.allocate(4096));
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(replayAll(translog, 1)).containsExactly("1:batch-1");
    }
  }

  @Test
  void rolledGenerationsAreReplayedFromTheCommittedOneAndTrimmed() throws IOException {
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
      long second = translog.rollGeneration();
      translog.append(2, payload(2));
      assertThat(second).isEqualTo(2);
      assertThat(replayAll(translog, 1)).containsExactly("1:batch-1", "2:batch-2");
      assertThat(replayAll(translog, second)).containsExactly("2:batch-2");
      translog.deleteGenerationsBefore(second);
      assertThat(translog.generationsOnDisk()).containsExactly(2L);
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(translog.currentGeneration()).isEqualTo(2);
      assertThat(replayAll(translog, Translog.OLDEST)).containsExactly("2:batch-2");
    }
  }

  @Test
  void aMissingGenerationIsAnErrorNamingIt() throws IOException {
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
      translog.rollGeneration();
      translog.append(2, payload(2));
      translog.rollGeneration();
      translog.append(3, payload(3));
    }
    java.nio.file.Files.delete(dir.resolve("translog-2.tlog"));
    try (Translog translog = Translog.open(dir)) {
      assertThatThrownBy(() -> replayAll(translog, 1)).isInstanceOf(IOException.class)
          .hasMessageStartingWith("translog generation 2 is missing from " + dir);
      assertThatThrownBy(() -> replayAll(translog, 5)).isInstanceOf(IOException.class)
          .hasMessageContaining("the newest present is 3");
      assertThat(replayAll(translog, 3)).hasSize(1);
    }
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor() == 0;
  }

  /** On a 1 MiB filesystem (a tmpfs; skipped where this user may not mount one): a full disk loses no record. */
  @Test
  void anAppendThatFillsTheDiskLeavesNoPartialRecord() throws Exception {
    Path small = dir.resolve("small");
    java.nio.file.Files.createDirectories(small);
    org.junit.jupiter.api.Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
        small.toString()), "mounting a tmpfs needs root");
    try {
      int appended = 0;
      byte[] big = new byte[100 * 1024];
      try (Translog translog = Translog.open(small)) {
        IOException full = null;
        while (full == null) {
          try {
            translog.append(appended + 1, big);
            appended++;
          } catch (IOException e) {
            full = e;
          }
        }
        assertThat(full).hasMessageContaining("No space left on device");
        assertThat(run("mount", "-o", "remount,size=4m", small.toString())).isTrue();
        translog.append(appended + 1, payload(appended + 1));
        translog.sync();
      }
      try (Translog translog = Translog.open(small)) {
        List<String> replayed = replayAll(translog, Translog.OLDEST);
        assertThat(replayed).hasSize(appended + 1);
        assertThat(replayed.get(appended)).isEqualTo((appended + 1) + ":batch-" + (appended + 1));
      }
    } finally {
      run("umount", small.toString());
    }
  }

  @Test
  void aCorruptRecordWithIntactRecordsAfterItIsRefusedUntilAnOperatorCutsIt() throws IOException {
    long secondAt;
    long thirdAt;
    try (Translog translog = Translog.open(dir)) {
      translog.append(1, payload(1));
      secondAt = translog.append(2, payload(2)).offset();
      thirdAt = translog.append(3, payload(3)).offset();
      translog.sync();
    }
    Path file = dir.resolve("translog-1.tlog");
    long size = Files.size(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      // A changed byte in the first record's payload: the two after it were acknowledged.
      channel.write(ByteBuffer.wrap(new byte[] {'X'}), 12 + 2);
    }
    assertThatThrownBy(() -> Translog.open(dir)).isInstanceOf(Translog.CorruptTranslogException.class)
        .hasMessageContaining("corrupt at offset 0").hasMessageContaining("--truncate-corrupt");
    assertThat(Files.size(file)).as("nothing cut").isEqualTo(size);

    String cut = Translog.truncateAtCorruption(dir);
    assertThat(cut).contains("kept the 0 records before offset 0", "2 intact records",
        "seq no 2 at offset " + secondAt, "seq no 3 at offset " + thirdAt);
    try (Stream<Path> files = Files.list(dir)) {
      Path copy = files.filter(f -> f.getFileName().toString().startsWith("translog-1.tlog.corrupt-")).findFirst()
          .orElseThrow();
      assertThat(Files.size(copy)).isEqualTo(size);
    }
    try (Translog translog = Translog.open(dir)) {
      assertThat(replayAll(translog, 1)).isEmpty();
      translog.append(4, payload(4));
    }
    assertThat(Translog.truncateAtCorruption(dir)).contains("intact");
  }

  @Test
  void aFailedFsyncFailsTheTranslogForGood() throws IOException {
    AtomicBoolean failing = new AtomicBoolean();
    List<IOException> handled = new ArrayList<>();
    Translog.onFailedSync(handled::add);
    try (Translog translog = Translog.open(dir, (file, options) -> new FailingSyncChannel(FileChannel.open(file,
        options), failing))) {
      translog.append(1, payload(1));
      translog.sync();
      translog.append(2, payload(2));
      failing.set(true);
      assertThatThrownBy(translog::sync).isInstanceOf(IOException.class).hasMessageContaining("failed an fsync");
      assertThat(handled).hasSize(1);
      // The disk recovers, but what the failed fsync did not write is not known to be there: nothing more goes in.
      failing.set(false);
      assertThatThrownBy(translog::sync).hasMessageContaining("failed an fsync");
      assertThatThrownBy(() -> translog.append(3, payload(3))).hasMessageContaining("failed an fsync");
      assertThatThrownBy(translog::rollGeneration).hasMessageContaining("failed an fsync");
    } finally {
      Translog.onFailedSync(e -> { });
    }
  }
}
