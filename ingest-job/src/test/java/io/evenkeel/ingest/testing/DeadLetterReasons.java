package io.evenkeel.ingest.testing;

import io.evenkeel.ingest.source.DeadLetterSerializer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The reasons of a dead-letter topic's letters, read from its start by a consumer group of its own. */
public final class DeadLetterReasons {
  private DeadLetterReasons() {}

  /**
   * Reads until {@code expected} letters arrived or {@code wait} passed, then for {@code linger} more (so that a
   * caller sees letters beyond those it expected).
   */
  public static List<String> read(String bootstrapServers, String topic, int expected, Duration wait,
      Duration linger) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "dead-letter-check-" + UUID.randomUUID());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> reasons = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + wait.toNanos();
      while (reasons.size() < expected && System.nanoTime() < deadline) {
        add(consumer, Duration.ofMillis(500), reasons);
      }
      if (!linger.isZero()) {
        add(consumer, linger, reasons);
      }
    }
    return reasons;
  }

  private static void add(KafkaConsumer<byte[], byte[]> consumer, Duration poll, List<String> reasons) {
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(poll)) {
      reasons.add(new String(record.headers().lastHeader(DeadLetterSerializer.REASON_HEADER).value(),
          StandardCharsets.UTF_8));
    }
  }
}
