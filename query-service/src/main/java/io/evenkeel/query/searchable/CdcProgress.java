package io.evenkeel.query.searchable;

import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.change.SourcePosition;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How far each CDC runner has published its binlog: the positions it published last on the positions topic of its
 * change topic ({@link SourcePosition#topicOf}), read at most once per {@link WrittenOffsets#MAX_AGE} per topic
 * whatever the number of callers, the last {@link #HISTORY} kept. A wait uses the earliest position that reaches the
 * point it names: its offsets are the fewest to wait for (changes after the point, and a dead letter among them,
 * do not hold it). The consumer is made on first use: a service no one asks by binlog position never reads these
 * topics.
 */
final class CdcProgress implements AutoCloseable {
  private static final SingleObjectCodec<CdcPosition> CODEC = SingleObjectCodec.of(CdcPosition.class);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration EXISTS_WAIT = Duration.ofSeconds(1);
  /** Positions kept per topic: at the runner's pace (a batch at most every 50 ms) the last several seconds. */
  static final int HISTORY = 128;
  /** Change topics tracked at once; the least recently asked is forgotten. */
  private static final int MAX_TOPICS = 16;

  /** What is known of one positions topic. */
  private static final class Progress {
    final ArrayDeque<CdcPosition> recent = new ArrayDeque<>();
    /** The next offset of the positions topic to read. */
    long next;
    long readAt;
  }

  private final Properties kafka;
  private final Map<String, Progress> topics = new LinkedHashMap<>(16, 0.75f, true);
  private KafkaConsumer<byte[], byte[]> consumer;

  CdcProgress(Properties kafka) {
    this.kafka = kafka;
  }

  /** The outcome of a look: the earliest position reaching the point, or else the latest one (null if none). */
  record Look(CdcPosition position, boolean reached) {}

  /**
   * The earliest known position of {@code changeTopic}'s runner that reaches {@code wanted}, or else its latest,
   * read no longer than {@link WrittenOffsets#MAX_AGE} ago. Throws {@link IllegalArgumentException} when no CDC
   * runner publishes to that topic or the positions cannot be compared with {@code wanted}.
   */
  synchronized Look look(String changeTopic, SourcePosition wanted) {
    Progress progress = topics.get(changeTopic);
    if (progress == null || System.nanoTime() - progress.readAt >= WrittenOffsets.MAX_AGE.toNanos()) {
      progress = read(changeTopic, progress);
    }
    for (CdcPosition position : progress.recent) {
      if (wanted.reachedBy(position)) {
        return new Look(position, true);
      }
    }
    return new Look(progress.recent.peekLast(), false);
  }

  private Progress read(String changeTopic, Progress known) {
    String topic = SourcePosition.topicOf(changeTopic);
    KafkaConsumer<byte[], byte[]> reader = consumer();
    if (known == null && !exists(reader, topic)) {
      throw new IllegalArgumentException("no CDC runner publishes positions for that topic (" + topic
          + " does not exist); name the change topic of bin/evenkeel cdc, <prefix>.<database>.<table>");
    }
    Progress progress = known != null ? known : new Progress();
    TopicPartition partition = new TopicPartition(topic, 0);
    reader.assign(List.of(partition));
    long end = reader.endOffsets(List.of(partition), READ_TIMEOUT).get(partition);
    if (end > progress.next) {
      if (end - progress.next > HISTORY) {
        progress.recent.clear();
      }
      reader.seek(partition, Math.max(progress.next, end - HISTORY));
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      // A compacted topic may have gaps: read until the position passes the end.
      while (reader.position(partition) < end) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("cannot read the CDC positions of " + topic + " within "
              + READ_TIMEOUT.toSeconds() + " s");
        }
        for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(100))) {
          progress.recent.addLast(decode(topic, record.value()));
          if (progress.recent.size() > HISTORY) {
            progress.recent.removeFirst();
          }
        }
      }
      progress.next = end;
    }
    progress.readAt = System.nanoTime();
    if (!topics.containsKey(changeTopic) && topics.size() >= MAX_TOPICS) {
      topics.remove(topics.keySet().iterator().next());
    }
    topics.put(changeTopic, progress);
    return progress;
  }

  /**
   * Whether {@code topic} exists. A topic just made can be missing for a moment from the metadata a broker gives a
   * consumer, so a missing one is asked for again for {@link #EXISTS_WAIT} before it counts as missing.
   */
  private static boolean exists(KafkaConsumer<byte[], byte[]> reader, String topic) {
    long deadline = System.nanoTime() + EXISTS_WAIT.toNanos();
    while (reader.partitionsFor(topic, READ_TIMEOUT).isEmpty()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    return true;
  }

  private static CdcPosition decode(String topic, byte[] value) {
    try {
      return CODEC.decode(value);
    } catch (MalformedRecordException e) {
      throw new IllegalStateException(topic + " holds a record that is no CDC position: " + e.getMessage(), e);
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    if (consumer == null) {
      Properties properties = new Properties();
      properties.putAll(kafka);
      properties.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "evenkeel-query-cdc-positions");
      properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      // Asking for a topic that does not exist must not create it.
      properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
      properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
      consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    return consumer;
  }

  @Override
  public synchronized void close() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(5));
    }
  }
}
