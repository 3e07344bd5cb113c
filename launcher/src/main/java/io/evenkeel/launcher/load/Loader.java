package io.evenkeel.launcher.load;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Produces the changes of a {@link RowReader} to the ingest topic as Avro single-object records keyed by
 * {@code tenant:row} (so every change of a row lands in one partition, in file order), with progress. The Kafka
 * producer batches. A bad line stops the load, after flushing what came before it, unless bad lines are skipped;
 * either way each is reported with its line number and counted.
 */
public final class Loader {
  /** How many skipped lines are printed one by one; beyond it they are only counted. */
  static final int MAX_REPORTED = 100;
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  /**
   * @param sent changes the broker acknowledged
   * @param skipped bad lines passed over ({@code --skip-bad})
   * @param stoppedAt the bad line that ended the load, or null
   * @param firstSentNanos {@link System#nanoTime} when the first change was handed to the producer, or -1
   * @param lastOffsets per partition of the topic, the offset of the last change the broker acknowledged there
   */
  public record Result(long sent, long skipped, BadLineException stoppedAt, long firstSentNanos, Duration took,
      Map<Integer, Long> lastOffsets) {
    public double rowsPerSecond() {
      return sent / Math.max(took.toNanos() / 1e9, 1e-9);
    }
  }

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final boolean skipBad;
  private final PrintStream out;
  private final Duration progressEvery;

  public Loader(Producer<byte[], byte[]> producer, String topic, boolean skipBad, PrintStream out,
      Duration progressEvery) {
    this.producer = producer;
    this.topic = topic;
    this.skipBad = skipBad;
    this.out = out;
    this.progressEvery = progressEvery;
  }

  /** Loads every change of {@code reader}; {@code fileBytes} sizes the progress' ETA. */
  public Result load(RowReader reader, long fileBytes) throws IOException, InterruptedException {
    AtomicLong acknowledged = new AtomicLong();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Map<Integer, Long> lastOffsets = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    long firstSent = -1;
    long produced = 0;
    long skipped = 0;
    long nextProgress = start + progressEvery.toNanos();
    BadLineException stoppedAt = null;
    while (true) {
      TransactionLogChange change;
      try {
        change = reader.next();
      } catch (IOException unreadable) {
        producer.flush();
        throw new IOException(unreadable.getMessage() + "; " + acknowledged.get() + " rows were sent before it",
            unreadable);
      } catch (BadLineException bad) {
        if (!skipBad) {
          stoppedAt = bad;
          break;
        }
        skipped++;
        if (skipped <= MAX_REPORTED) {
          out.println("skipped " + bad.getMessage());
        } else if (skipped == MAX_REPORTED + 1) {
          out.println("(more than " + MAX_REPORTED + " bad lines: the rest are counted, not shown)");
        }
        continue;
      }
      if (change == null) {
        break;
      }
      byte[] key = (change.getTenantId() + ":" + change.getRowId()).getBytes(StandardCharsets.UTF_8);
      if (firstSent < 0) {
        firstSent = System.nanoTime();
      }
      producer.send(new ProducerRecord<>(topic, key, CHANGES.encode(change)), (metadata, e) -> {
        if (e == null) {
          acknowledged.incrementAndGet();
          lastOffsets.merge(metadata.partition(), metadata.offset(), Math::max);
        } else {
          failure.compareAndSet(null, e);
        }
      });
      produced++;
      if (failure.get() != null) {
        break;
      }
      long now = System.nanoTime();
      if (now >= nextProgress) {
        progress(produced, reader.bytesRead(), fileBytes, now - start);
        nextProgress = now + progressEvery.toNanos();
      }
    }
    producer.flush();
    if (failure.get() != null) {
      throw new IOException("producing to topic " + topic + " failed after " + acknowledged.get()
          + " acknowledged rows: " + failure.get().getMessage(), failure.get());
    }
    return new Result(acknowledged.get(), skipped, stoppedAt, firstSent,
        Duration.ofNanos(System.nanoTime() - start), Map.copyOf(lastOffsets));
  }

  private void progress(long rows, long bytes, long fileBytes, long elapsedNanos) {
    double seconds = elapsedNanos / 1e9;
    double done = fileBytes > 0 ? Math.min(1.0, (double) bytes / fileBytes) : 0;
    String eta = done > 0 ? String.format(", ETA %.0f s", seconds * (1 - done) / done) : "";
    out.printf("%,d rows, %,.0f rows/s, %.0f%% of the file%s%n", rows, rows / seconds, done * 100, eta);
    out.flush();
  }
}
