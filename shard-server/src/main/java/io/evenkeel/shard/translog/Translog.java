package io.evenkeel.shard.translog;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard's write-ahead log: records appended to generation files {@code translog-<generation>.tlog}.
 *
 * <p>Record format: {@code int payloadLength, long firstSeqNo, payload, int crc32c(length, firstSeqNo, payload)}, big
 * endian. A process killed in the middle of an append leaves a torn last record: {@link #open} finds it by length or
 * checksum, logs it and truncates the file there; it was never acknowledged, because acknowledgement waits for the
 * append (and, with {@link Durability#REQUEST}, the fsync).
 *
 * <p>Generations: {@link #rollGeneration} starts a new file; once a Lucene commit holds every change of the older
 * generations, {@link #deleteGenerationsBefore} removes them.
 *
 * <p>NOTE: appends must come from one thread at a time (the shard's write lock); {@link #sync} may run concurrently
 * from the interval syncer.
 */
public final class Translog implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Translog.class);
  private static final int HEADER_BYTES = Integer.BYTES + Long.BYTES;
  private static final int FOOTER_BYTES = Integer.BYTES;
  /** For {@link #replay}: every generation on disk, however old the oldest is. */
  public static final long OLDEST = 0;
  /** Larger lengths can only come from a torn or corrupt header. */
  static final int MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

  private final Path directory;
  private final Object syncLock = new Object();
  private FileChannel channel;
  private long generation;
  /** Bytes of the current generation written to the channel (the next record's offset). */
  private volatile long writtenOffset;
  /** Bytes of the current generation known to be on disk. */
  private volatile long syncedOffset;
  private long syncedGeneration;
  private boolean closed;

  private Translog(Path directory, long generation, FileChannel channel, long offset) {
    this.directory = directory;
    this.generation = generation;
    this.channel = channel;
    this.writtenOffset = offset;
    this.syncedOffset = offset;
    this.syncedGeneration = generation;
  }

  /**
   * Opens the translog in {@code directory} (creating it), cutting a torn tail off the newest generation, and
   * continues appending to it.
   */
  public static Translog open(Path directory) throws IOException {
    Files.createDirectories(directory);
    TreeMap<Long, Path> generations = generations(directory);
    long generation = generations.isEmpty() ? 1 : generations.lastKey();
    Path file = fileOf(directory, generation);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    if (generations.isEmpty()) {
      IOUtils.fsync(directory, true);
    }
    long valid = scan(channel, generation, record -> {});
    if (valid < channel.size()) {
      LOG.warn("translog {}: dropping a torn or corrupt tail of {} bytes at offset {} (an unacknowledged append)",
          file, channel.size() - valid, valid);
      channel.truncate(valid);
      channel.force(true);
    }
    channel.position(valid);
    return new Translog(directory, generation, channel, valid);
  }

  /** Appends one record; it is durable once {@link #sync} (or the interval syncer) has run. */
  public TranslogLocation append(long firstSeqNo, byte[] payload) throws IOException {
    if (payload.length == 0 || payload.length > MAX_PAYLOAD_BYTES) {
      throw new IllegalArgumentException(
          "a translog record holds 1 to " + MAX_PAYLOAD_BYTES + " bytes; got: " + payload.length);
    }
    ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES + payload.length + FOOTER_BYTES);
    buffer.putInt(payload.length).putLong(firstSeqNo).put(payload);
    CRC32C crc = new CRC32C();
    crc.update(buffer.array(), 0, buffer.position());
    buffer.putInt((int) crc.getValue());
    buffer.flip();
    TranslogLocation location;
    synchronized (syncLock) {
      ensureOpen();
      location = new TranslogLocation(generation, writtenOffset);
      try {
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      } catch (IOException e) {
        // A write that failed part-way (a full disk) must leave no partial record for the next one to follow: a
        // replay would stop at it and miss every record after.
        channel.truncate(writtenOffset);
        channel.position(writtenOffset);
        throw e;
      }
      writtenOffset += buffer.limit();
    }
    return location;
  }

  /** Forces everything appended so far to disk. */
  public void sync() throws IOException {
    synchronized (syncLock) {
      if (closed || (syncedGeneration == generation && syncedOffset == writtenOffset)) {
        return;
      }
      channel.force(false);
      syncedGeneration = generation;
      syncedOffset = writtenOffset;
    }
  }

  /** Starts a new generation (after syncing the current one) and returns its number. */
  public long rollGeneration() throws IOException {
    synchronized (syncLock) {
      ensureOpen();
      channel.force(false);
      channel.close();
      generation++;
      channel = FileChannel.open(fileOf(directory, generation), StandardOpenOption.CREATE_NEW,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      // The new file's name must be on disk before a commit names its generation as where replay starts.
      IOUtils.fsync(directory, true);
      writtenOffset = 0;
      syncedOffset = 0;
      syncedGeneration = generation;
      return generation;
    }
  }

  /** Deletes the files of generations older than {@code generation}; their changes are in a Lucene commit. */
  public void deleteGenerationsBefore(long generation) throws IOException {
    for (var entry : generations(directory).headMap(generation).entrySet()) {
      Files.deleteIfExists(entry.getValue());
    }
  }

  /**
   * Reads every record of generations >= {@code fromGeneration} ({@link #OLDEST}: all on disk), oldest first. Every
   * generation from there to the current one must be on disk: a missing one is an error naming it, never a silent
   * skip of its writes.
   */
  public void replay(long fromGeneration, Consumer<TranslogRecord> consumer) throws IOException {
    synchronized (syncLock) {
      ensureOpen();
      TreeMap<Long, Path> present = generations(directory);
      long first = fromGeneration == OLDEST ? present.firstKey() : fromGeneration;
      if (first > generation) {
        throw new IOException("translog generation " + first + " is missing from " + directory
            + " (the newest present is " + generation + ")");
      }
      for (long gen = first; gen <= generation; gen++) {
        if (!present.containsKey(gen)) {
          throw new IOException("translog generation " + gen + " is missing from " + directory + " (replay needs "
              + "generations " + first + " to " + generation + "; present: " + present.keySet() + ")");
        }
      }
      for (var entry : present.tailMap(first).entrySet()) {
        long gen = entry.getKey();
        if (gen == generation) {
          scan(channel, gen, consumer);
          channel.position(writtenOffset);
        } else {
          try (FileChannel old = FileChannel.open(entry.getValue(), StandardOpenOption.READ)) {
            long valid = scan(old, gen, consumer);
            if (valid < old.size()) {
              throw new IOException("translog generation " + gen + " is corrupt at offset " + valid + " of "
                  + old.size() + " bytes; only the newest generation may end in a torn record");
            }
          }
        }
      }
    }
  }

  public long currentGeneration() {
    synchronized (syncLock) {
      return generation;
    }
  }

  /** Bytes in all generations on disk. */
  public long sizeInBytes() {
    long total = 0;
    try {
      for (Path file : generations(directory).values()) {
        total += Files.size(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return total;
  }

  @Override
  public void close() throws IOException {
    synchronized (syncLock) {
      if (closed) {
        return;
      }
      closed = true;
      channel.force(false);
      channel.close();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("translog " + directory + " is closed");
    }
  }

  /** Feeds every intact record to {@code consumer} and returns the offset where the intact records end. */
  private static long scan(FileChannel channel, long generation, Consumer<TranslogRecord> consumer)
      throws IOException {
    long size = channel.size();
    long offset = 0;
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
    while (offset + HEADER_BYTES + FOOTER_BYTES <= size) {
      header.clear();
      readFully(channel, header, offset);
      int length = header.getInt(0);
      long firstSeqNo = header.getLong(Integer.BYTES);
      // Payloads are never empty, so a zero length is a zero-filled (preallocated or torn) tail.
      if (length <= 0 || length > MAX_PAYLOAD_BYTES || offset + HEADER_BYTES + length + FOOTER_BYTES > size) {
        return offset;
      }
      ByteBuffer body = ByteBuffer.allocate(length + FOOTER_BYTES);
      readFully(channel, body, offset + HEADER_BYTES);
      CRC32C crc = new CRC32C();
      crc.update(header.array(), 0, HEADER_BYTES);
      crc.update(body.array(), 0, length);
      if ((int) crc.getValue() != body.getInt(length)) {
        return offset;
      }
      byte[] payload = new byte[length];
      System.arraycopy(body.array(), 0, payload, 0, length);
      consumer.accept(new TranslogRecord(firstSeqNo, payload, new TranslogLocation(generation, offset)));
      offset += HEADER_BYTES + length + FOOTER_BYTES;
    }
    return offset;
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position + buffer.position());
      if (read < 0) {
        throw new IOException("unexpected end of translog file at " + (position + buffer.position()));
      }
    }
  }

  private static Path fileOf(Path directory, long generation) {
    return directory.resolve("translog-" + generation + ".tlog");
  }

  private static TreeMap<Long, Path> generations(Path directory) throws IOException {
    TreeMap<Long, Path> generations = new TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "translog-*.tlog")) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        generations.put(Long.parseLong(name.substring("translog-".length(), name.length() - ".tlog".length())), file);
      }
    }
    return generations;
  }

  /** The generations on disk, for tests and stats. */
  List<Long> generationsOnDisk() throws IOException {
    return new ArrayList<>(generations(directory).keySet());
  }
}
