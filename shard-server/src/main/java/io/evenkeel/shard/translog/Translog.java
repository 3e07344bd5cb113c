package io.evenkeel.shard.translog;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
 * append (and, with {@link Durability#REQUEST}, the fsync). A bad record with intact records after it is not a torn
 * append but a corrupt file whose later records were acknowledged: {@link #open} refuses it ({@link
 * CorruptTranslogException}) and cuts nothing; {@link #truncateAtCorruption} does, once an operator accepts the loss,
 * keeping a copy of the file.
 *
 * <p>A failed fsync is fatal: the kernel may have dropped the pages it could not write while reporting them clean, so
 * no later fsync can be trusted to have written them. The translog refuses every later append and sync, and calls
 * the handler installed with {@link #onFailedSync} (the shard server stops, so that its replicas take over).
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
  /** More than a generation could hold between two records: a larger jump comes from bytes that are no header. */
  private static final long MAX_SEQ_NO_GAP = 1L << 40;

  /** What a failed fsync does besides failing the translog; the shard server's stops the process. */
  private static volatile Consumer<IOException> failedSyncHandler = e -> { };
  /** How channels are opened; tests give one whose fsync fails. */
  private final ChannelOpener opener;
  private final Path directory;
  private final Object syncLock = new Object();
  /** Set once an fsync failed: nothing is appended or synced after it. */
  private IOException failedSync;
  private FileChannel channel;
  private long generation;
  /** Bytes of the current generation written to the channel (the next record's offset). */
  private volatile long writtenOffset;
  /** Bytes of the current generation known to be on disk. */
  private volatile long syncedOffset;
  private long syncedGeneration;
  private boolean closed;

  /** Opens a translog file's channel. */
  interface ChannelOpener {
    FileChannel open(Path file, StandardOpenOption... options) throws IOException;
  }

  /** A file of the translog holds a bad record with intact records after it. */
  public static final class CorruptTranslogException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptTranslogException(String message) {
      super(message);
    }
  }

  private Translog(ChannelOpener opener, Path directory, long generation, FileChannel channel, long offset) {
    this.opener = opener;
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
    return open(directory, FileChannel::open);
  }

  static Translog open(Path directory, ChannelOpener opener) throws IOException {
    Files.createDirectories(directory);
    TreeMap<Long, Path> generations = generations(directory);
    long generation = generations.isEmpty() ? 1 : generations.lastKey();
    Path file = fileOf(directory, generation);
    FileChannel channel = opener.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      if (generations.isEmpty()) {
        IOUtils.fsync(directory, true);
      }
      long[] lastSeqNo = {-1};
      long valid = scan(channel, generation, record -> lastSeqNo[0] = record.firstSeqNo());
      if (valid < channel.size()) {
        long intact = intactRecordAfter(channel, valid, lastSeqNo[0]);
        if (intact >= 0) {
          throw new CorruptTranslogException("translog " + file + " is corrupt at offset " + valid + " of "
              + channel.size() + " bytes, and an intact record follows at offset " + intact + ": the records after "
              + "the corruption were acknowledged, so the shard does not open with them cut off. Let a replica of "
              + "the shard take over; or, accepting the loss of every record after offset " + valid + ", run "
              + "`bin/evenkeel translog --truncate-corrupt " + directory + "` (it keeps a copy of the file)");
        }
        LOG.warn("translog {}: dropping a torn tail of {} bytes at offset {} (an unacknowledged append)",
            file, channel.size() - valid, valid);
        channel.truncate(valid);
        channel.force(true);
      }
      channel.position(valid);
      return new Translog(opener, directory, generation, channel, valid);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Cuts the newest generation of the translog in {@code directory} at its first bad record, after copying the file
   * to {@code translog-<generation>.tlog.corrupt-<millis>}: for an operator who accepts losing the records after a
   * corruption {@link #open} refused. Returns what it did, for the operator; nothing when the file is intact.
   */
  public static String truncateAtCorruption(Path directory) throws IOException {
    TreeMap<Long, Path> generations = generations(directory);
    if (generations.isEmpty()) {
      throw new IOException("no translog generation in " + directory);
    }
    long generation = generations.lastKey();
    Path file = generations.lastEntry().getValue();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long[] kept = {0, -1}; // records, the last one's first sequence number
      long valid = scan(channel, generation, record -> {
        kept[0]++;
        kept[1] = record.firstSeqNo();
      });
      long size = channel.size();
      if (valid == size) {
        return "translog " + file + " is intact (" + kept[0] + " records, " + size + " bytes); nothing cut";
      }
      List<String> dropped = new ArrayList<>();
      long lastSeqNo = kept[1];
      for (long at = intactRecordAfter(channel, valid, lastSeqNo); at >= 0; ) {
        List<TranslogRecord> run = new ArrayList<>();
        long end = scan(channel, generation, at, run::add);
        run.forEach(record -> dropped.add("seq no " + record.firstSeqNo() + " at offset "
            + record.location().offset()));
        lastSeqNo = run.get(run.size() - 1).firstSeqNo();
        at = end < size ? intactRecordAfter(channel, end, lastSeqNo) : -1;
      }
      Path copy = file.resolveSibling(file.getFileName() + ".corrupt-" + System.currentTimeMillis());
      Files.copy(file, copy);
      IOUtils.fsync(copy, false);
      channel.truncate(valid);
      channel.force(true);
      IOUtils.fsync(directory, true);
      return "translog " + file + ": kept the " + kept[0] + " records before offset " + valid + ", cut the "
          + (size - valid) + " bytes after it, which held " + dropped.size() + " intact records"
          + (dropped.isEmpty() ? "" : " (" + String.join(", ", dropped) + ")") + " and the corrupt one before them;"
          + " the whole file is copied to " + copy;
    }
  }

  /** Sets what a failed fsync does besides failing the translog (once per process; the shard server stops). */
  public static void onFailedSync(Consumer<IOException> handler) {
    failedSyncHandler = handler;
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
      ensureWritable();
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
      if (failedSync != null) {
        throw failed();
      }
      if (closed || (syncedGeneration == generation && syncedOffset == writtenOffset)) {
        return;
      }
      force();
      syncedGeneration = generation;
      syncedOffset = writtenOffset;
    }
  }

  /** Forces the channel to disk; a failure fails the translog for good (see the class comment). */
  private void force() throws IOException {
    try {
      channel.force(false);
    } catch (IOException e) {
      failedSync = e;
      LOG.error("translog {}: fsync failed; the translog accepts no more appends", directory, e);
      failedSyncHandler.accept(e);
      throw failed();
    }
  }

  private IOException failed() {
    return new IOException("translog " + directory + " failed an fsync and accepts nothing more (its unsynced "
        + "records may not be on disk whatever a later fsync says): " + failedSync.getMessage(), failedSync);
  }

  /** Starts a new generation (after syncing the current one) and returns its number. */
  public long rollGeneration() throws IOException {
    synchronized (syncLock) {
      ensureWritable();
      force();
      channel.close();
      generation++;
      channel = opener.open(fileOf(directory, generation), StandardOpenOption.CREATE_NEW,
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
        try {
          total += Files.size(file);
        } catch (NoSuchFileException trimmed) {
          // Deleted since the listing: a commit made that generation redundant meanwhile.
        }
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
      try {
        if (failedSync == null) {
          channel.force(false);
        }
      } finally {
        channel.close();
      }
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("translog " + directory + " is closed");
    }
  }

  private void ensureWritable() throws IOException {
    ensureOpen();
    if (failedSync != null) {
      throw failed();
    }
  }

  /**
   * Where an intact record starts after {@code from} (a bad record), or -1: one whose length fits the file, whose
   * sequence number follows {@code lastSeqNo} (the last intact record's before it, -1 if none) and whose checksum
   * matches. The sequence number rules out nearly every offset at once, so the search is a single pass.
   */
  private static long intactRecordAfter(FileChannel channel, long from, long lastSeqNo) throws IOException {
    long size = channel.size();
    long span = Math.min(size - from, Integer.MAX_VALUE - 8L);
    java.nio.MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, from, span);
    CRC32C crc = new CRC32C();
    for (int at = 1; at + HEADER_BYTES + FOOTER_BYTES <= span; at++) {
      int length = bytes.getInt(at);
      long seqNo = bytes.getLong(at + Integer.BYTES);
      if (length <= 0 || length > span - at - HEADER_BYTES - FOOTER_BYTES || seqNo <= lastSeqNo
          || seqNo - Math.max(0, lastSeqNo) > MAX_SEQ_NO_GAP) {
        continue;
      }
      crc.reset();
      crc.update(bytes.slice(at, HEADER_BYTES + length));
      if ((int) crc.getValue() == bytes.getInt(at + HEADER_BYTES + length)) {
        return from + at;
      }
    }
    return -1;
  }

  /** Feeds every intact record to {@code consumer} and returns the offset where the intact records end. */
  private static long scan(FileChannel channel, long generation, Consumer<TranslogRecord> consumer)
      throws IOException {
    return scan(channel, generation, 0, consumer);
  }

  /** As {@link #scan(FileChannel, long, Consumer)}, from the record at {@code offset}. */
  private static long scan(FileChannel channel, long generation, long offset, Consumer<TranslogRecord> consumer)
      throws IOException {
    long size = channel.size();
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
