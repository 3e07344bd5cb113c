package io.evenkeel.query.console;

import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the ingest job's tenant monitor: the window summaries it writes to Kafka (each tumbling window's top tenants
 * and their shares of all writes), keeping the newest {@value #WINDOWS}. It reads without a consumer group, from a
 * little before the end, so a service started late shows the current windows at once and commits nothing.
 */
public final class HotTenantFeed implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HotTenantFeed.class);
  /** Windows kept: ten minutes of the job's default 10 s windows. */
  static final int WINDOWS = 60;

  private final String topic;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final SingleObjectCodec<WindowSummary> codec = SingleObjectCodec.of(WindowSummary.class);
  private final NavigableMap<Long, WindowSummary> windows = new TreeMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile String problem = "waiting for the topic";

  private HotTenantFeed(String topic, Properties kafka) {
    this.topic = topic;
    Properties properties = new Properties();
    properties.putAll(kafka);
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "query-service-console");
    this.consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.thread = new Thread(this::run, "hot-tenant-feed");
    thread.setDaemon(true);
  }

  /** Starts following {@code topic} with {@code kafka}'s client settings (bootstrap servers, security). */
  public static HotTenantFeed start(String topic, Properties kafka) {
    HotTenantFeed feed = new HotTenantFeed(topic, kafka);
    feed.thread.start();
    return feed;
  }

  public String topic() {
    return topic;
  }

  /** Why no window shows now (the topic is missing, Kafka is unreachable), or null when the feed reads. */
  public String problem() {
    return problem;
  }

  /** The newest windows, oldest first. */
  public synchronized List<WindowSummary> windows() {
    return new ArrayList<>(windows.values());
  }

  private void run() {
    try {
      while (running && !assign()) {
        Thread.sleep(1_000);
      }
      while (running) {
        try {
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
            add(record);
          }
          problem = null;
        } catch (WakeupException e) {
          return;
        } catch (KafkaException e) {
          problem = "cannot read " + topic + ": " + e.getMessage();
          LOG.warn("hot tenants: {}", problem);
          Thread.sleep(1_000);
        }
      }
    } catch (InterruptedException | WakeupException e) {
      Thread.currentThread().interrupt();
    } finally {
      consumer.close(Duration.ofSeconds(1));
    }
  }

  /** Assigns the topic's partitions from {@value #WINDOWS} records before their ends; false while it has none. */
  private boolean assign() {
    try {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(5));
      if (partitions == null || partitions.isEmpty()) {
        problem = "no topic " + topic + " yet (the ingest job creates it when it starts)";
        return false;
      }
      List<TopicPartition> assigned = partitions.stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(assigned);
      Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(assigned);
      consumer.endOffsets(assigned).forEach((partition, end) ->
          consumer.seek(partition, Math.max(beginnings.get(partition), end - WINDOWS)));
      problem = null;
      return true;
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      problem = "cannot reach Kafka for " + topic + ": " + e.getMessage();
      return false;
    }
  }

  private synchronized void add(ConsumerRecord<byte[], byte[]> record) {
    if (record.value() == null) {
      return;
    }
    try {
      WindowSummary summary = codec.decode(record.value());
      windows.put(summary.getWindowEnd(), summary);
      while (windows.size() > WINDOWS) {
        windows.pollFirstEntry();
      }
    } catch (MalformedRecordException e) {
      LOG.warn("hot tenants: skipped record {}-{}@{}, not a window summary: {}", record.topic(), record.partition(),
          record.offset(), e.getMessage());
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    thread.join(5_000);
  }
}
