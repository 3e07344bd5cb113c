package io.evenkeel.ingest.sink;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@link WrittenOffsets} as the committed offsets of a Kafka consumer group of their own (no consumer ever
 * joins it): {@code evenkeel load --wait} waits on them, and Kafka's own tools show that group's lag as the changes
 * not yet in the shards. At most one request is in flight; offsets that moved meanwhile go with the next one, and a
 * failed request (the group coordinator moving, say) is simply made again with the next offsets.
 */
final class WrittenOffsetsPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WrittenOffsetsPublisher.class);

  private final String group;
  private final Admin kafka;
  private final Map<TopicPartition, Long> unpublished = new HashMap<>();
  /** Offsets of failed requests, put back by the admin client's thread. */
  private final Map<TopicPartition, Long> failed = new ConcurrentHashMap<>();
  private final AtomicBoolean inFlight = new AtomicBoolean();

  /** @param kafkaProperties the job's Kafka client properties, bootstrap servers included */
  WrittenOffsetsPublisher(Properties kafkaProperties, String group, String clientId) {
    this.group = group;
    Properties properties = new Properties();
    properties.putAll(kafkaProperties);
    properties.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    this.kafka = Admin.create(properties);
  }

  /** Publishes {@code moved} (partition → next offset to write), with any offsets a previous request left behind. */
  void publish(Map<TopicPartition, Long> moved) {
    for (TopicPartition partition : failed.keySet()) {
      Long next = failed.remove(partition);
      if (next != null) {
        unpublished.merge(partition, next, Math::max);
      }
    }
    moved.forEach((partition, next) -> unpublished.merge(partition, next, Math::max));
    if (unpublished.isEmpty() || !inFlight.compareAndSet(false, true)) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    unpublished.forEach((partition, next) -> offsets.put(partition, new OffsetAndMetadata(next)));
    unpublished.clear();
    kafka.alterConsumerGroupOffsets(group, offsets).all().whenComplete((ignored, failure) -> {
      if (failure != null) {
        LOG.debug("publishing written offsets to group {} failed; the next publish retries: {}", group,
            failure.toString());
        offsets.forEach((partition, next) -> failed.merge(partition, next.offset(), Math::max));
      }
      inFlight.set(false);
    });
  }

  @Override
  public void close() {
    kafka.close();
  }
}
