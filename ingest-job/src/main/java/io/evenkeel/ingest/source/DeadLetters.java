package io.evenkeel.ingest.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The decoder's dead letters on their way to Kafka: sent at once without waiting, and waited for ({@link
 * #awaitAll}) before anything that would let the job count their offsets as written, so that no dead letter is lost
 * to a crash after the records behind it were acknowledged. Not thread-safe: the decoder's task thread only.
 */
final class DeadLetters implements AutoCloseable {
  private final Producer<byte[], byte[]> producer;
  private final DeadLetterSerializer serializer;
  private final List<Future<RecordMetadata>> inFlight = new ArrayList<>();

  DeadLetters(Producer<byte[], byte[]> producer, String topic) {
    this.producer = producer;
    this.serializer = new DeadLetterSerializer(topic);
  }

  void send(DeadLetter letter) {
    inFlight.add(producer.send(serializer.serialize(letter, null, System.currentTimeMillis())));
  }

  /** Whether some dead letter is not known to be in Kafka yet. */
  boolean pending() {
    return !inFlight.isEmpty();
  }

  /** Returns once Kafka has every dead letter sent; throws when one could not be written (the job restarts). */
  void awaitAll() throws InterruptedException {
    if (inFlight.isEmpty()) {
      return;
    }
    producer.flush();
    try {
      for (Future<RecordMetadata> sent : inFlight) {
        sent.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a dead letter could not be written to Kafka: " + e.getCause(), e.getCause());
    } finally {
      inFlight.clear();
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
