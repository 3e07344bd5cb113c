package io.evenkeel.ingest.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A topic's records, read from its start by a consumer group of its own, each as what the caller wants of it. */
public final class TopicRecords {
  private TopicRecords() {}

  /** What a caller wants of one record (its decoded value, a header); may fail with {@code E}. */
  @FunctionalInterface
  public interface Extractor<T, E extends Exception> {
    T extract(ConsumerRecord<byte[], byte[]> record) throws E;
  }

  /**
   * Reads until {@code atLeast} records arrived or {@code wait} passed, then for {@code linger} more unless it is
   * zero (so that a caller sees records beyond those it expected).
   */
  public static <T, E extends Exception> List<T> read(String bootstrapServers, String topic, int atLeast,
      Duration wait, Duration linger, Extractor<T, E> extractor) throws E {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "check-" + topic + "-" + UUID.randomUUID());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<T> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + wait.toNanos();
      while (records.size() < atLeast && System.nanoTime() < deadline) {
        add(consumer, Duration.ofMillis(500), extractor, records);
      }
      if (!linger.isZero()) {
        add(consumer, linger, extractor, records);
      }
    }
    return records;
  }

  private static <T, E extends Exception> void add(KafkaConsumer<byte[], byte[]> consumer, Duration poll,
      Extractor<T, E> extractor, List<T> records) throws E {
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(poll)) {
      records.add(extractor.extract(record));
    }
  }
}
