package io.evenkeel.query.searchable;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the ingest job has written each partition: its shard sink publishes, as the committed offsets of a consumer
 * group of its own, the offset up to which every change is acknowledged by its shard (in its translog and index).
 * Read from Kafka at most once per {@link #MAX_AGE} whatever the number of callers.
 */
public final class WrittenOffsets implements AutoCloseable {
  static final Duration MAX_AGE = Duration.ofMillis(50);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

  private final Admin admin;
  private final String group;
  private Map<TopicPartition, Long> last = Map.of();
  private long readAt;

  private WrittenOffsets(Admin admin, String group) {
    this.admin = admin;
    this.group = group;
  }

  /** Reads {@code group}'s offsets through a Kafka client with {@code kafka}'s properties (bootstrap, security). */
  public static WrittenOffsets of(Properties kafka, String group) {
    Properties properties = new Properties();
    properties.putAll(kafka);
    properties.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "evenkeel-query-written-offsets");
    return new WrittenOffsets(Admin.create(properties), group);
  }

  public String group() {
    return group;
  }

  /**
   * The next offset to write per partition (one past the last written, Kafka's convention), no older than {@link
   * #MAX_AGE}; a partition the job has not written is absent.
   */
  synchronized Map<TopicPartition, Long> next() throws InterruptedException {
    if (System.nanoTime() - readAt < MAX_AGE.toNanos() && readAt != 0) {
      return last;
    }
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
          .get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("cannot read the ingest job's written offsets (consumer group " + group + "): "
          + cause.getMessage(), cause);
    }
    Map<TopicPartition, Long> next = new HashMap<>();
    committed.forEach((partition, offset) -> {
      if (offset != null) {
        next.put(partition, offset.offset());
      }
    });
    last = next;
    readAt = System.nanoTime();
    return last;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
