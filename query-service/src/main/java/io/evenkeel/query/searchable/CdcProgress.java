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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How far each CDC runner has published its binlog: the positions it published last on the positions topic of its
 * change topic ({@link SourcePosition#topicOf}), read at most once per {@link WrittenOffsets#MAX_AGE} per topic
 * whatever the number of callers, the last {@link #HISTORY} kept. A wait uses the earliest position that reaches the
 * point it names: its offsets are the fewest to wait for (changes after the point, and a dead letter among them,
 * do not hold it). The consumer is made on first use: a service no one asks by binlog position never reads these
 * topics. Whether a runner publishes to a topic at all is asked outside the lock ({@link #requireRunner}), so a
 * caller naming topics that do not exist delays no one else's wait.
 */
final class CdcProgress implements AutoCloseable {
  private static final SingleObjectCodec<CdcPosition> CODEC = SingleObjectCodec.of(CdcPosition.class);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration EXISTS_WAIT = Duration.ofSeconds(1);
  /** Positions kept per topic: at the runner's pace (a batch at most every 50 ms) the last several seconds. */
  static final int HISTORY = 128;
  /** Change topics tracked at once; the least recently asked is forgotten. */
  private static final int MAX_TOPICS = 16;
  /** Missing positions topics remembered at once; a caller naming many different ones only empties the list. */
  private static final int MAX_MISSING = 1_024;

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
  /** Positions topics seen to exist. */
  private final Set<String> existing = ConcurrentHashMap.newKeySet();
  /** Positions topics found missing, to when they count as missing without asking again. */
  private final Map<String, Long> missingUntil = new ConcurrentHashMap<>();
  private volatile Admin admin;

  CdcProgress(Properties kafka) {
    this.kafka = kafka;
  }

  /** The outcome of a look: the earliest position reaching the point, or else the latest one (null if none). */
  record Look(CdcPosition position, boolean reached) {}

  /**
   * The earliest known position of {@code changeTopic}'s runner that reaches {@code wanted}, or else its latest,
   * read no longer than {@link WrittenOffsets#MAX_AGE} ago, for a topic {@link #requireRunner} has let pass. Throws
   * {@link IllegalArgumentException} when the positions cannot be compared with {@code wanted}.
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
   * Throws {@link IllegalArgumentException} unless a CDC runner publishes positions for {@code changeTopic}: its
   * positions topic exists. A topic just made can be missing for a moment from a broker's metadata, so a missing one
   * is asked for again for {@link #EXISTS_WAIT} before it counts as missing; then it counts as missing for as long
   * again without asking. Runs in the caller's thread, holding no lock.
   */
  void requireRunner(String changeTopic) throws InterruptedException {
    String topic = SourcePosition.topicOf(changeTopic);
    if (existing.contains(topic)) {
      return;
    }
    Long until = missingUntil.get(topic);
    if (until == null || System.nanoTime() - until >= 0) {
      if (exists(topic)) {
        existing.add(topic);
        missingUntil.remove(topic);
        return;
      }
      if (missingUntil.size() >= MAX_MISSING) {
        missingUntil.clear();
      }
      missingUntil.put(topic, System.nanoTime() + EXISTS_WAIT.toNanos());
    }
    throw new IllegalArgumentException("no CDC runner publishes positions for that topic (" + topic
        + " does not exist); name the change topic of bin/evenkeel cdc, <prefix>.<database>.<table>");
  }

  private boolean exists(String topic) throws InterruptedException {
    long deadline = System.nanoTime() + EXISTS_WAIT.toNanos();
    while (true) {
      try {
        admin().describeTopics(List.of(topic)).allTopicNames().get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return true;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw new IllegalStateException("cannot ask Kafka whether " + topic + " exists: " + e.getCause(), e);
        }
      } catch (TimeoutException e) {
        throw new IllegalStateException("cannot ask Kafka whether " + topic + " exists within "
            + READ_TIMEOUT.toSeconds() + " s", e);
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  private Admin admin() {
    Admin made = admin;
    if (made == null) {
      synchronized (existing) {
        made = admin;
        if (made == null) {
          Properties properties = new Properties();
          properties.putAll(kafka);
          properties.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "evenkeel-query-cdc-topics");
          admin = made = Admin.create(properties);
        }
      }
    }
    return made;
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
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
  }
}
