package io.evenkeel.workload;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Changes to the ingest topic as native producers write them: Avro single-object {@code TransactionLogChange}s keyed
 * by {@code tenant:row}. Sends do not wait; the first failure is kept, and {@link #flush} throws it.
 */
public final class ChangeProducer implements AutoCloseable {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  private final String bootstrapServers;
  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  public ChangeProducer(String bootstrapServers, String topic, String clientId, int batchBytes) {
    this(bootstrapServers, new Properties(), topic, clientId, batchBytes);
  }

  /**
   * With {@code clientProperties} besides the address (a secured broker's SASL settings, {@code acks}, timeouts, a
   * linger of its own).
   */
  public ChangeProducer(String bootstrapServers, Properties clientProperties, String topic, String clientId,
      int batchBytes) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    Properties properties = new Properties();
    properties.putAll(clientProperties);
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, batchBytes);
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
  }

  public void send(TransactionLogChange change) {
    byte[] key = (change.getTenantId() + ":" + change.getRowId()).getBytes(StandardCharsets.UTF_8);
    producer.send(new ProducerRecord<>(topic, key, CHANGES.encode(change)), (written, e) -> {
      if (e == null) {
        acknowledged.incrementAndGet();
      } else {
        failed.incrementAndGet();
        failure.compareAndSet(null, e);
      }
    });
  }

  /** Whether a send has failed: stop sending. */
  public boolean failed() {
    return failure.get() != null;
  }

  /** Changes Kafka acknowledged so far. */
  public long acknowledged() {
    return acknowledged.get();
  }

  /** Changes whose send failed so far: Kafka may or may not hold them. */
  public long failedSends() {
    return failed.get();
  }

  /** The first failed send's cause, or null. */
  public Exception firstFailure() {
    return failure.get();
  }

  /** Waits until Kafka has every change sent; throws the first failure. */
  public void flush() {
    producer.flush();
    if (failure.get() != null) {
      throw new IllegalStateException("producing to " + topic + " at " + bootstrapServers + " failed",
          failure.get());
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
