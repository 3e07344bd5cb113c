package io.evenkeel.ingest.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one sink writer's lanes spill ({@link LaneSpill}): a directory of its own under the spill root (or a new
 * temporary directory without one), private to the owner and made at the first spill; how many bytes the lanes hold there; and the files read back, deleted once
 * {@value #SNAPSHOTS_KEPT} more checkpoints were taken after (a checkpoint names the unread part of each file, and Flink
 * restores from the latest one completed). Task thread only.
 */
final class SpillFiles {
  private static final Logger LOG = LoggerFactory.getLogger(SpillFiles.class);
  private static final int SNAPSHOTS_KEPT = 3;
  private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_DIRECTORY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

  private record Retired(Path file, long snapshot) {}

  private final Path root;
  private final String dirName;
  private Path dir;
  private final ArrayDeque<Retired> retired = new ArrayDeque<>();
  private long bytes;
  private long snapshots;
  private long files;

  /**
   * A fresh writer (not restored from a checkpoint) deletes what earlier writers of its subtask left under
   * {@code root}: no checkpoint it will restore from names them.
   */
  SpillFiles(Path root, int subtask, boolean restored) {
    String prefix = "sink-" + subtask + "-";
    this.root = root;
    this.dirName = prefix + UUID.randomUUID();
    if (root != null && !restored && Files.isDirectory(root)) {
      try (DirectoryStream<Path> stale = Files.newDirectoryStream(root, prefix + "*")) {
        for (Path old : stale) {
          deleteTree(old);
        }
      } catch (IOException e) {
        LOG.warn("cannot delete old spill files under {}: {}", root, e.toString());
      }
    }
  }

  /** A new file for a lane's spill, readable and writable by the owner only from its creation. */
  Path newFile(String name) throws IOException {
    if (dir == null) {
      if (root == null) {
        dir = Files.createTempDirectory("evenkeel-" + dirName, PRIVATE_DIRECTORY); // the job runs without a data dir
      } else {
        Files.createDirectories(root, PRIVATE_DIRECTORY);
        dir = Files.createDirectory(root.resolve(dirName), PRIVATE_DIRECTORY);
      }
    }
    return Files.createFile(dir.resolve(name + "-" + files++ + ".spill"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
  }

  /** Counts bytes the lanes wrote to their spill (positive) or read back (negative). */
  void add(long delta) {
    bytes += delta;
  }

  /** The bytes the lanes hold spilled and not read back. */
  long bytes() {
    return bytes;
  }

  /** A file whose changes were all read back (by a lane, or from a restored checkpoint): deleted later. */
  void retire(Path file) {
    retired.add(new Retired(file, snapshots));
  }

  /** After a checkpoint's state was taken: deletes the files no checkpoint that may be restored names any more. */
  void snapshotTaken() {
    snapshots++;
    while (!retired.isEmpty() && retired.peek().snapshot() + SNAPSHOTS_KEPT <= snapshots) {
      Path file = retired.poll().file();
      try {
        Files.deleteIfExists(file);
        try (Stream<Path> left = Files.list(file.getParent())) {
          if (left.findAny().isEmpty() && !file.getParent().equals(dir)) {
            Files.deleteIfExists(file.getParent()); // an earlier writer's directory, emptied after a restore
          }
        }
      } catch (IOException e) {
        LOG.warn("cannot delete the spill file {}: {}", file, e.toString());
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (NoSuchFileException e) {
      // gone already
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
