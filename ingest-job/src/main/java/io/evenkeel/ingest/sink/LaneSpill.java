package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A lane's changes beyond its bound, on local disk, oldest first: appended while its shard is stalled, read back as
 * the lane's buffer makes room. Files of about {@value #FILE_BYTES} bytes, each a sequence of records (a length, then
 * the change as {@link RoutedChangeRecords} writes it). Nothing is synced: a spilled change's Kafka offset is never
 * published as written before its shard acknowledged it, so after a crash the job reads it from Kafka again. The
 * appends and reads run on the task thread; {@link #count} is read by metrics.
 */
final class LaneSpill {
  /** The part of a spill file a checkpoint names: {@code count} changes from byte {@code position} of {@code file}. */
  record Range(String file, long position, long count) {}

  /** Reads a restored range's changes, oldest first. */
  interface ChangeConsumer {
    void accept(RoutedChange change) throws IOException, InterruptedException;
  }

  private static final long FILE_BYTES = 64L << 20;

  private static final class File {
    final Path path;
    DataOutputStream out;
    DataInputStream in;
    long written;
    long read;
    long size;
    long readPosition;

    File(Path path) throws IOException {
      this.path = path;
      this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(path), 1 << 16));
    }
  }

  private final SpillFiles files;
  private final String name;
  private final long fileBytes;
  private final ArrayDeque<File> spill = new ArrayDeque<>();
  private final ByteArrayOutputStream record = new ByteArrayOutputStream();
  private volatile long count;

  LaneSpill(SpillFiles files, String name) {
    this(files, name, FILE_BYTES);
  }

  /** With files of {@code fileBytes} (a change or more each). */
  LaneSpill(SpillFiles files, String name, long fileBytes) {
    this.files = files;
    this.name = name;
    this.fileBytes = fileBytes;
  }

  /** How many changes wait here. */
  long count() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  void append(RoutedChange change) throws IOException {
    File tail = spill.peekLast();
    if (tail == null || tail.size >= fileBytes) {
      if (tail != null) {
        tail.out.close();
        tail.out = null;
      }
      tail = new File(files.newFile(name));
      spill.add(tail);
    }
    record.reset();
    RoutedChangeRecords.write(new DataOutputStream(record), change);
    tail.out.writeInt(record.size());
    record.writeTo(tail.out);
    long bytes = Integer.BYTES + record.size();
    tail.size += bytes;
    tail.written++;
    files.add(bytes);
    count++;
  }

  /** The oldest change here; call only when not {@link #isEmpty}. */
  RoutedChange poll() throws IOException {
    File head = spill.peek();
    if (head.out != null) {
      head.out.flush(); // the reader may be about to read what was just appended
    }
    if (head.in == null) {
      head.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(head.path), 1 << 16));
    }
    int length = head.in.readInt();
    RoutedChange change = RoutedChangeRecords.read(head.in);
    long bytes = Integer.BYTES + length;
    head.read++;
    head.readPosition += bytes;
    files.add(-bytes);
    count--;
    if (head.read == head.written) { // the tail too, once all it holds was read: the next append starts a file
      spill.poll();
      head.in.close();
      if (head.out != null) {
        head.out.close();
      }
      files.retire(head.path);
    }
    return change;
  }

  /** The unread part of each file, for a checkpoint; flushes what was appended, so a restore can read it. */
  List<Range> ranges() throws IOException {
    List<Range> ranges = new ArrayList<>(spill.size());
    for (File file : spill) {
      if (file.out != null) {
        file.out.flush();
      }
      if (file.written > file.read) {
        ranges.add(new Range(file.path.toString(), file.readPosition, file.written - file.read));
      }
    }
    return ranges;
  }

  /** Closes the files without deleting them: a checkpoint may name them. */
  void close() {
    for (File file : spill) {
      try {
        if (file.out != null) {
          file.out.close();
        }
        if (file.in != null) {
          file.in.close();
        }
      } catch (IOException e) {
        // closing only
      }
    }
  }

  /**
   * Reads a range a restored checkpoint names, oldest first. A file that is gone means the job was restored away
   * from where it spilled: that is an error, since its changes may be on no shard yet.
   */
  static void read(Range range, ChangeConsumer consumer) throws IOException, InterruptedException {
    Path path = Path.of(range.file());
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new IOException("the checkpoint names " + range.count() + " spilled changes in " + path + ", which is"
          + " gone (restored on another machine, or the file was deleted): start the job afresh, without this"
          + " checkpoint; it reads from the written offsets, which never pass a change its shard has not"
          + " acknowledged", e);
    }
    try (channel; InputStream stream = Channels.newInputStream(channel.position(range.position()));
        DataInputStream in = new DataInputStream(new BufferedInputStream(stream, 1 << 16))) {
      for (long i = 0; i < range.count(); i++) {
        in.readInt();
        consumer.accept(RoutedChangeRecords.read(in));
      }
    }
  }
}
