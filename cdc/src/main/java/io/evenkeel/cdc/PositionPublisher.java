package io.evenkeel.cdc;

import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.PartitionOffset;
import io.evenkeel.schemas.change.SourcePosition;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes how far the runner has published the binlog, so that a writer that names a binlog position or GTID can
 * learn when its changes are searchable ({@code GET /searchable?binlog=} on the query service): at each transaction
 * whose change events Kafka has acknowledged, the position Debezium would resume from (every change before it is
 * published) and the last offset of the change topic in each partition up to it, as a {@link CdcPosition} on
 * {@link SourcePosition#topicOf} (one partition, compacted under one key: the latest record is the position).
 *
 * <p>The offsets are those of this runner's records, and for partitions it has not written since it started, the
 * topic's end at its start: everything before that was published by an earlier run.
 */
final class PositionPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(PositionPublisher.class);
  private static final SingleObjectCodec<CdcPosition> CODEC = SingleObjectCodec.of(CdcPosition.class);
  private static final byte[] KEY = "position".getBytes(StandardCharsets.UTF_8);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaProducer<byte[], byte[]> producer;
  private final String changeTopic;
  private final String topic;
  /** Partition of the change topic to its last offset published (task thread only). */
  private final Map<Integer, Long> lastOffsets = new TreeMap<>();
  private String file;
  private long position = -1;
  private String gtids;
  /** Whether the last position failed to publish (producer thread). */
  private volatile boolean failed;

  private PositionPublisher(KafkaProducer<byte[], byte[]> producer, String changeTopic) {
    this.producer = producer;
    this.changeTopic = changeTopic;
    this.topic = SourcePosition.topicOf(changeTopic);
  }

  /**
   * Creates the positions topic if it is missing and reads where the change topic ends; throws when Kafka does not
   * answer within 30 s.
   */
  static PositionPublisher start(Properties kafka, KafkaProducer<byte[], byte[]> producer, String changeTopic)
      throws InterruptedException {
    PositionPublisher publisher = new PositionPublisher(producer, changeTopic);
    try (Admin admin = Admin.create(kafka)) {
      publisher.createTopic(admin);
      publisher.lastOffsets.putAll(endOffsets(admin, changeTopic));
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot prepare the CDC position topic " + publisher.topic + ": "
          + (e.getCause() == null ? e : e.getCause()), e);
    }
    return publisher;
  }

  private void createTopic(Admin admin) throws InterruptedException, ExecutionException,
      TimeoutException {
    // Compacted under one key, with segments rolled every 10 minutes: it stays one record or a few.
    NewTopic positions = new NewTopic(topic, Optional.of(1), Optional.empty())
        .configs(Map.of("cleanup.policy", "compact", "segment.ms", "600000"));
    try {
      admin.createTopics(List.of(positions)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  /** The last offset in each partition of {@code changeTopic} (none where it is empty or missing). */
  private static Map<Integer, Long> endOffsets(Admin admin, String changeTopic) throws InterruptedException,
      ExecutionException, TimeoutException {
    TopicDescription description;
    try {
      description = admin.describeTopics(List.of(changeTopic)).allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(changeTopic);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Map.of();
      }
      throw e;
    }
    Map<TopicPartition, OffsetSpec> latest = description.partitions().stream()
        .collect(Collectors.toMap(p -> new TopicPartition(changeTopic, p.partition()), p -> OffsetSpec.latest()));
    Map<Integer, Long> last = new TreeMap<>();
    admin.listOffsets(latest).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).forEach((partition, end) -> {
      if (end.offset() > 0) {
        last.put(partition.partition(), end.offset() - 1);
      }
    });
    return last;
  }

  /** A change event of the change topic that Kafka has acknowledged. */
  void published(RecordMetadata metadata) {
    if (metadata.topic().equals(changeTopic) && metadata.hasOffset()) {
      lastOffsets.merge(metadata.partition(), metadata.offset(), Math::max);
    }
  }

  /**
   * Every change before Debezium's {@code sourceOffset} (its resume position: a binlog file and position, and the
   * executed GTIDs) is acknowledged; publishes it if it moved. Offsets taken inside a snapshot are passed over: the
   * snapshot is at the binlog position where it began only once it has ended.
   */
  void reached(Map<String, ?> sourceOffset) {
    Object snapshot = sourceOffset.get("snapshot");
    if (snapshot != null && Boolean.parseBoolean(snapshot.toString())) {
      return;
    }
    Object offsetFile = sourceOffset.get("file");
    Object offsetPosition = sourceOffset.get("pos");
    if (!(offsetFile instanceof String name) || !(offsetPosition instanceof Number number)) {
      return;
    }
    Object offsetGtids = sourceOffset.get("gtids");
    String executed = offsetGtids == null ? null : offsetGtids.toString();
    if (name.equals(file) && number.longValue() == position && Objects.equals(executed, gtids)) {
      return;
    }
    file = name;
    position = number.longValue();
    gtids = executed;
    List<PartitionOffset> offsets = new ArrayList<>(lastOffsets.size());
    lastOffsets.forEach((partition, offset) -> offsets.add(new PartitionOffset(partition, offset)));
    CdcPosition record = new CdcPosition(file, position, gtids, offsets, System.currentTimeMillis());
    producer.send(new ProducerRecord<>(topic, KEY, CODEC.encode(record)), (metadata, error) -> {
      // Capture goes on without it: only read-your-writes by binlog position waits longer.
      if (error != null && !failed) {
        failed = true;
        LOG.warn("publishing the CDC position to {} failed ({}); GET /searchable?binlog= waits until one is", topic,
            error.toString());
      } else if (error == null) {
        failed = false;
      }
    });
  }
}
