package io.evenkeel.client;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The last offset a producer's records got in each partition, per topic: pass it as the callback of {@code
 * KafkaProducer.send} (or {@link #record} each {@code RecordMetadata}), then ask {@link SearchableClient#await} once
 * they are all acknowledged. Thread-safe: the producer calls back on its I/O thread.
 */
public final class ProducedOffsets implements Callback {
  private final Map<String, Map<Integer, Long>> last = new TreeMap<>();
  private Exception failure;

  /** Kafka has a record: remembers its offset. */
  public synchronized void record(RecordMetadata metadata) {
    if (metadata.hasOffset()) {
      last.computeIfAbsent(metadata.topic(), topic -> new TreeMap<>())
          .merge(metadata.partition(), metadata.offset(), Math::max);
    }
  }

  @Override
  public synchronized void onCompletion(RecordMetadata metadata, Exception exception) {
    if (exception != null) {
      if (failure == null) {
        failure = exception;
      }
    } else {
      record(metadata);
    }
  }

  /** The first send that failed (its records are in no offset here), or null. */
  public synchronized Exception failure() {
    return failure;
  }

  /** Partition to last offset of the records sent to {@code topic}; empty when none was. */
  public synchronized Map<Integer, Long> lastOffsets(String topic) {
    return Map.copyOf(last.getOrDefault(topic, Map.of()));
  }

  /** Forgets every offset (and failure): the next wait is for the records sent after this. */
  public synchronized void clear() {
    last.clear();
    failure = null;
  }
}
