package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.source.DeadLetter;
import io.evenkeel.ingest.source.DeadLetterSerializer;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends the changes a shard refused to the dead-letter topic, like the records the job could not decode: the
 * change's bytes, its origin (topic, partition, first offset) and the shard's reason in the headers. A change counts as
 * written only once its dead letter is in Kafka; after a restore from an earlier checkpoint it may be dead-lettered
 * again (at least once, as the job's own dead letters).
 */
final class RefusedChanges implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final DeadLetterSerializer serializer;

  /** @param kafkaProperties the job's Kafka client properties, bootstrap servers included */
  RefusedChanges(Properties kafkaProperties, String deadLetterTopic) {
    Properties properties = new Properties();
    properties.putAll(kafkaProperties);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    // Dead letters are rare and must not wait for a batch to fill.
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    this.serializer = new DeadLetterSerializer(deadLetterTopic);
  }

  /** Dead-letters each refused change; completes once Kafka has them all. */
  CompletableFuture<Void> send(int shard, List<ShardWriteClient.Refused> refused) {
    CompletableFuture<?>[] sent = new CompletableFuture<?>[refused.size()];
    for (int i = 0; i < sent.length; i++) {
      CompletableFuture<Void> one = new CompletableFuture<>();
      producer.send(serializer.serialize(letter(shard, refused.get(i)), null, System.currentTimeMillis()),
          (metadata, failure) -> {
            if (failure == null) {
              one.complete(null);
            } else {
              one.completeExceptionally(failure);
            }
          });
      sent[i] = one;
    }
    return CompletableFuture.allOf(sent);
  }

  private static DeadLetter letter(int shard, ShardWriteClient.Refused refused) {
    RoutedChange change = refused.change();
    DeadLetter letter = new DeadLetter();
    letter.topic = change.topic;
    letter.partition = change.partition;
    letter.offset = change.firstOffset;
    letter.value = change.bytes();
    letter.reason = "shard " + shard + " refused the change: " + refused.reason()
        + (change.lastOffset > change.firstOffset
            ? " (the change is offsets " + change.firstOffset + ".." + change.lastOffset + " folded into one)" : "");
    return letter;
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
