package io.evenkeel.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.schemas.change.BinlogVersion;
import io.evenkeel.schemas.table.ColumnMapping;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes, once a table has been snapshotted again, the rows an earlier run published that the table no longer has.
 *
 * <p>Debezium cannot resume a snapshot: a runner stopped before its snapshot ended (or started without its state
 * directory) snapshots the table anew and then streams from the new snapshot's binlog position. A row deleted in
 * between is in neither, so its earlier events would keep it in Evenkeel for good. So when a snapshot begins and
 * the topic already holds events, the reconciler reads the topic back (each row's last event, by key),
 * strikes off every row the new snapshot has, and when the snapshot ends hands back a delete for each row left: an
 * envelope whose before-image has the row's routing columns (tenant, row id, creation time: what a delete needs),
 * with a binlog position just after the newest the topic held ({@link BinlogVersion}, as the ingest job orders
 * them). That position is above every earlier event of the row, and below the new snapshot's and every event
 * streamed after it: a row deleted and inserted again since keeps its insert.
 *
 * <p>Memory: each live row's key and routing columns, as text (a few hundred bytes a row), while the snapshot runs.
 * The topic must keep each row's last event (no retention by time or size, or compaction), as for any Debezium topic
 * meant to be replayed; a topic that has dropped its first events is reconciled with what it still holds, and the
 * runner says so.
 */
final class SnapshotReconciler {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotReconciler.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Each row published before as live that the new snapshot has not shown yet: its key, then its routing columns. */
  private final Map<String, String> unseen;
  /** The newest binlog position in the topic: the {@code source} of its event. */
  private final ObjectNode newestSource;

  private SnapshotReconciler(Map<String, String> unseen, ObjectNode newestSource) {
    this.unseen = unseen;
    this.newestSource = newestSource;
  }

  /**
   * Reads the topic back to its current end; null when it holds no event yet (a first snapshot: nothing to
   * reconcile).
   */
  static SnapshotReconciler readBack(Properties kafka, String topic, ColumnMapping mapping) {
    Set<String> routingColumns = new HashSet<>();
    for (String column : ColumnMapping.REQUIRED) {
      routingColumns.add(mapping.sourceOf(column).toLowerCase(Locale.ROOT));
    }
    Properties properties = new Properties();
    properties.putAll(kafka);
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    long started = System.nanoTime();
    Map<String, String> live = new HashMap<>();
    ObjectNode newest = null;
    long newestVersion = 0;
    long read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
          .map(info -> new TopicPartition(topic, info.partition())).toList();
      if (partitions.isEmpty()) {
        return null;
      }
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, Duration.ofSeconds(60));
      List<TopicPartition> toRead = partitions.stream().filter(p -> end.get(p) > begin.get(p)).toList();
      if (toRead.isEmpty()) {
        return null;
      }
      if (begin.values().stream().anyMatch(offset -> offset > 0)) {
        LOG.warn("{} no longer holds its first events (retention): rows whose last event it dropped cannot be"
            + " deleted if the table lacks them; keep the topic with retention.ms=-1 or compacted", topic);
      }
      consumer.assign(toRead);
      consumer.seekToBeginning(toRead);
      Set<TopicPartition> remaining = new HashSet<>(toRead);
      while (!remaining.isEmpty()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          if (record.offset() >= end.get(partition) || record.value() == null || record.key() == null) {
            continue;
          }
          read++;
          JsonNode event;
          try {
            event = JSON.readTree(record.value());
          } catch (IOException e) {
            LOG.warn("skipping {} at {}: not a JSON change event ({})", partition, record.offset(), e.getMessage());
            continue;
          }
          JsonNode envelope = event.has("payload") ? event.get("payload") : event;
          String key = new String(record.key(), StandardCharsets.UTF_8);
          JsonNode after = envelope.path("after");
          if (envelope.path("op").asText().equals("d") || !after.isObject()) {
            live.remove(key);
          } else {
            ObjectNode routing = JSON.createObjectNode();
            after.properties().forEach(field -> {
              if (routingColumns.contains(field.getKey().toLowerCase(Locale.ROOT))) {
                routing.set(field.getKey(), field.getValue());
              }
            });
            live.put(key, routing.toString());
          }
          JsonNode source = envelope.path("source");
          long version;
          try {
            version = BinlogVersion.of(source.path("file").asText(""), source.path("pos").asLong(-1),
                source.path("row").asLong(0));
          } catch (IllegalArgumentException e) {
            continue; // no binlog position: the job dead-letters such an event, so it versions no row
          }
          if (newest == null || version > newestVersion) {
            newestVersion = version;
            newest = (ObjectNode) source;
          }
        }
        remaining.removeIf(partition -> consumer.position(partition) >= end.get(partition));
      }
    }
    LOG.info("snapshotting {} again: read back {} events of {} live rows in {} ms; rows the new snapshot lacks"
        + " will be deleted when it ends", topic, read, live.size(), (System.nanoTime() - started) / 1_000_000);
    if (newest == null && !live.isEmpty()) {
      LOG.warn("{}: no event has a binlog position; the rows the new snapshot lacks cannot be deleted", topic);
    }
    return newest == null ? null : new SnapshotReconciler(live, newest);
  }

  /** The new snapshot has the row with this key. */
  void seen(String key) {
    unseen.remove(key);
  }

  /** The snapshot has ended: a delete envelope for each row it lacked, by key. */
  Map<String, String> deletes() {
    ObjectNode source = newestSource.deepCopy();
    // Just after the newest event the topic held: a position no event has (an event takes more than a byte).
    source.put("pos", newestSource.path("pos").asLong() + 1);
    source.put("row", 0);
    source.put("snapshot", "false");
    long now = System.currentTimeMillis();
    source.put("ts_ms", now);
    Map<String, String> deletes = new HashMap<>();
    String tail = ",\"after\":null,\"source\":" + source + ",\"op\":\"d\",\"ts_ms\":" + now + "}";
    for (Map.Entry<String, String> row : unseen.entrySet()) {
      deletes.put(row.getKey(), "{\"before\":" + row.getValue() + tail);
    }
    LOG.info("the new snapshot has ended: {} rows the table no longer has are deleted", deletes.size());
    return deletes;
  }
}
