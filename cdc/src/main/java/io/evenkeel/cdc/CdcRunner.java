package io.evenkeel.cdc;

import io.debezium.embedded.EmbeddedEngineChangeEvent;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.schemas.table.ColumnMapping;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures one MySQL or MariaDB table with the Debezium engine (its MariaDB connector, or the MySQL connector for a
 * MySQL server): a snapshot of the table, then its binlog, each row change published to Kafka as Debezium's JSON
 * change-event envelope ({@code before}, {@code after}, {@code source}, {@code op}), keyed by the row's primary key, on
 * the topic {@code <prefix>.<database>.<table>}: what a Debezium connector in Kafka Connect with the JSON converter
 * writes ({@code schemas.enable=false}).
 *
 * <p>A batch's offsets are marked processed only once Kafka has every event of it (the producer retries for as long
 * as Kafka is away), and the offsets and the schema history are files in the state directory: a restarted runner
 * resumes where Kafka's copy ends, without a new snapshot and without a gap (events after the last stored offset are
 * published again; their binlog versions make that harmless). A runner stopped before its snapshot ended snapshots
 * again, and then deletes the rows it published before that the table no longer has ({@link SnapshotReconciler}).
 * After each batch it publishes how far in the binlog it has come ({@link PositionPublisher}).
 */
public final class CdcRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CdcRunner.class);
  /** The dead-letter headers, as the ingest job writes them: why, and where the record came from. */
  static final String REASON_HEADER = "evenkeel.reason";
  static final String SOURCE_HEADER = "evenkeel.source";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Debezium's heartbeat topic is {@code __debezium-heartbeat.<prefix>}. */
  private static final String HEARTBEAT_PREFIX = "__debezium-heartbeat";

  /** Which Debezium connector reads the binlog. */
  public enum Connector {
    MARIADB("io.debezium.connector.mariadb.MariaDbConnector"),
    MYSQL("io.debezium.connector.mysql.MySqlConnector");

    final String className;

    Connector(String className) {
      this.className = className;
    }
  }

  private final KafkaProducer<byte[], byte[]> producer;
  private final DebeziumEngine<ChangeEvent<String, String>> engine;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
    Thread t = new Thread(runnable, "debezium-engine");
    t.setDaemon(true);
    return t;
  });
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private final AtomicLong published = new AtomicLong();
  private final String topic;
  private final PositionPublisher positions;
  /** When the last progress line was logged, and the count then. */
  private long loggedAt = System.nanoTime();
  private long loggedCount;
  private final Properties kafkaProperties;
  private final ColumnMapping columnMapping;
  private final int maxEventBytes;
  private final String deadLetterTopic;
  /** While a snapshot of a table published before runs: the rows it has not shown yet (engine thread only). */
  private SnapshotReconciler reconciler;

  private CdcRunner(CdcSettings settings, SourceTable source) throws IOException, InterruptedException {
    Files.createDirectories(settings.stateDir);
    Properties producerProperties = settings.kafkaProperties();
    producerProperties.put(ProducerConfig.ACKS_CONFIG, "all");
    producerProperties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Kafka away: wait for it, in order, rather than fail the batch.
    producerProperties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
    producerProperties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    producerProperties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    // JSON compresses several times over.
    producerProperties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // Room for the largest event published and its batch's framing; larger events are dead letters (publish).
    producerProperties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, settings.maxEventBytes + 64 * 1024);
    this.maxEventBytes = settings.maxEventBytes;
    this.deadLetterTopic = settings.deadLetterTopic;
    this.kafkaProperties = settings.kafkaProperties();
    this.columnMapping = settings.columnMapping();
    this.producer = new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
    this.topic = settings.topicPrefix + "." + source.qualifiedName();
    this.positions = PositionPublisher.start(kafkaProperties, producer, topic);
    this.engine = DebeziumEngine.create(Json.class)
        .using(engineProperties(settings, source))
        .notifying(this::publish)
        .using((success, message, error) -> {
          if (success) {
            stopped.complete(null);
          } else {
            stopped.completeExceptionally(new IOException("the Debezium engine stopped: " + message, error));
          }
        })
        .build();
  }

  /**
   * Checks that the table can feed {@code transaction_logs} through the settings' column mapping (throws {@link
   * IllegalArgumentException} naming what is missing), then starts capturing it.
   */
  public static CdcRunner start(CdcSettings settings) throws Exception {
    SourceTable source = settings.sourceTable();
    source.check(settings.columnMapping());
    CdcRunner runner = new CdcRunner(settings, source);
    runner.thread.execute(runner.engine);
    LOG.info("capturing {} from {}:{} into topic {} (state in {})", source.qualifiedName(), source.host(),
        source.port(), runner.topic, settings.stateDir);
    return runner;
  }

  static Properties engineProperties(CdcSettings settings, SourceTable source) {
    Path state = settings.stateDir.toAbsolutePath();
    Properties p = new Properties();
    p.setProperty("name", "evenkeel-cdc");
    p.setProperty("connector.class", settings.connector.className);
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    p.setProperty("offset.storage.file.filename", state.resolve("offsets.dat").toString());
    p.setProperty("offset.flush.interval.ms", "1000");
    p.setProperty("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
    p.setProperty("schema.history.internal.file.filename", state.resolve("schema-history.dat").toString());
    p.setProperty("database.hostname", source.host());
    p.setProperty("database.port", Integer.toString(source.port()));
    p.setProperty("database.user", source.user());
    p.setProperty("database.password", source.password());
    p.setProperty("database.server.id", Long.toString(settings.serverId));
    p.setProperty("database.include.list", source.database());
    p.setProperty("table.include.list", source.qualifiedName());
    // Only the columns the mapping reads: an unmapped BLOB would otherwise make events too large to publish.
    p.setProperty("column.include.list", includedColumns(settings.columnMapping(), source));
    p.setProperty("topic.prefix", settings.topicPrefix);
    // Values that need no schema to be read: exact decimals as strings ("19.90", not base64 bytes), DATETIME as
    // epoch milliseconds (Kafka Connect's Timestamp), TIMESTAMP as an ISO-8601 instant. So the events go without
    // their schema (the JSON converter's schemas.enable=false): a quarter of the bytes, and of the converter's time.
    p.setProperty("decimal.handling.mode", "string");
    p.setProperty("time.precision.mode", "connect");
    p.setProperty("converter.schemas.enable", "false");
    p.setProperty("include.schema.changes", "false");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("snapshot.mode", "initial");
    // A heartbeat a second keeps the stored position current while the captured table is quiet and the rest of the
    // server is not: a stored position the server has since purged from its binlog would mean a new snapshot.
    p.setProperty("heartbeat.interval.ms", "1000");
    // The server sends its own heartbeat every 0.8 of this while the binlog is idle: so the position Debezium
    // would resume from moves past the last transaction within a second even when nothing follows it, and a writer
    // waiting for that transaction's position (PositionPublisher) is not kept waiting.
    p.setProperty("connect.keep.alive.interval.ms", "1000");
    // Bigger batches, handed over sooner: one batch is published (and waited for) at a time.
    p.setProperty("max.batch.size", "8192");
    p.setProperty("max.queue.size", "32768");
    p.setProperty("poll.interval.ms", "50");
    return p;
  }

  /**
   * Debezium's {@code column.include.list} for the columns {@code mapping} feeds {@code transaction_logs} from
   * (regular expressions of {@code database.table.column}; the key's columns are in the key whatever it says).
   */
  static String includedColumns(ColumnMapping mapping, SourceTable source) {
    return TransactionLogsTable.COLUMNS.stream()
        .map(column -> Pattern.quote(source.qualifiedName() + "." + mapping.sourceOf(column.name())))
        .distinct()
        .collect(Collectors.joining(","));
  }

  /**
   * Publishes the positions of {@code reachedAfter} from {@code from} on whose records before them are the first
   * {@code acknowledged} (an unchanged position is not published again); returns the index of the first left.
   */
  private int reachPositions(List<Map.Entry<Integer, Map<String, ?>>> reachedAfter, int from, int acknowledged) {
    int next = from;
    while (next < reachedAfter.size() && reachedAfter.get(next).getKey() <= acknowledged) {
      positions.reached(reachedAfter.get(next++).getValue());
    }
    return next;
  }

  /** Publishes a batch of change events, then marks them processed: their offsets may be stored once Kafka has them. */
  private void publish(List<ChangeEvent<String, String>> events,
      DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) throws InterruptedException {
    List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
    // Where Debezium would resume, at each event that starts a transaction (or a heartbeat, which carries the end of
    // the last one), and how many records were sent before it: every change before that position is among them or
    // published before this batch. Published per transaction, so that a writer who waits for its commit does not
    // wait for the records of a later transaction in the same batch (a dead letter among them would never count as
    // written until more arrives in its partition).
    List<Map.Entry<Integer, Map<String, ?>>> reachedAfter = new ArrayList<>();
    for (ChangeEvent<String, String> event : events) {
      String value = event.value();
      if (value == null) {
        continue;
      }
      // Heartbeats only carry the position to store: they go nowhere.
      boolean heartbeat = event.destination().startsWith(HEARTBEAT_PREFIX);
      boolean snapshotRecord = !heartbeat && envelopeField(value, "op").equals("r");
      String snapshotMark = snapshotRecord ? envelopeField(value, "snapshot") : "";
      // A snapshot begins (again, after a restart or a retried task): what the topic holds so far is to reconcile.
      if (snapshotMark.equals("first")) {
        reconciler = SnapshotReconciler.readBack(kafkaProperties, topic, columnMapping);
      }
      if (reconciler != null && !snapshotRecord) {
        sendDeletes(sent); // the snapshot ended without marking its last record
      }
      if (!heartbeat) {
        byte[] key = bytes(event.key());
        byte[] bytes = bytes(value);
        long size = (key == null ? 0 : key.length) + (long) bytes.length;
        sent.add(size > maxEventBytes ? producer.send(deadLetter(event.destination(), key, value, size))
            : producer.send(new ProducerRecord<>(event.destination(), key, bytes)));
      }
      // A data event's offset is where its transaction starts: every change before it was sent before its record.
      int sentBefore = heartbeat ? sent.size() : sent.size() - 1;
      if (reconciler != null) {
        reconciler.seen(event.key());
        if (snapshotMark.equals("last")) {
          sendDeletes(sent); // with the last record's batch: its offset says the snapshot is done
          sentBefore = sent.size(); // and holds every snapshot record and those deletes
        }
      }
      if ((!snapshotRecord || snapshotMark.equals("last"))
          && event instanceof EmbeddedEngineChangeEvent<?, ?, ?> embedded) {
        reachedAfter.add(Map.entry(sentBefore, embedded.sourceRecord().sourceOffset()));
      }
    }
    int next = 0;
    for (int i = 0; i < sent.size(); i++) {
      next = reachPositions(reachedAfter, next, i);
      try {
        positions.published(sent.get(i).get());
      } catch (ExecutionException e) {
        // Only a failure the producer will not retry (an authorization error, a record too large): stop here, so
        // that no offset moves past an event Kafka does not have.
        throw new IllegalStateException("publishing a change event failed: " + e.getCause(), e.getCause());
      }
    }
    reachPositions(reachedAfter, next, sent.size());
    for (ChangeEvent<String, String> event : events) {
      committer.markProcessed(event);
    }
    committer.markBatchFinished();
    long total = published.addAndGet(sent.size());
    long now = System.nanoTime();
    if (now - loggedAt >= 10_000_000_000L) {
      LOG.info("published {} change events ({} in the last {} s, {}/s)", total, total - loggedCount,
          (now - loggedAt) / 1_000_000_000L, (total - loggedCount) * 1_000_000_000L / (now - loggedAt));
      loggedAt = now;
      loggedCount = total;
    }
  }

  /**
   * An event too large to publish, as a dead letter: its key, no value, the reason and where it is in the binlog in
   * the headers (as the ingest job writes its dead letters), so that the row can be found and fixed at the source.
   */
  private ProducerRecord<byte[], byte[]> deadLetter(String destination, byte[] key, String value, long size) {
    String position;
    try {
      JsonNode source = JSON.readTree(value).path("source");
      position = "binlog " + source.path("file").asText() + " position " + source.path("pos").asLong() + " row "
          + source.path("row").asInt();
    } catch (IOException e) {
      position = "unknown (" + e.getMessage() + ")";
    }
    String reason = "the change event is " + size + " bytes, over --max-event-bytes " + maxEventBytes + " (what Kafka"
        + " accepts); it was not published to " + destination + ". Shrink the row at the source, or raise the limit"
        + " with the topic's max.message.bytes";
    LOG.warn("dead letter: {} at {}", reason, position);
    RecordHeaders headers = new RecordHeaders();
    headers.add(new RecordHeader(REASON_HEADER, reason.getBytes(StandardCharsets.UTF_8)));
    headers.add(new RecordHeader(SOURCE_HEADER, (destination + " at " + position).getBytes(StandardCharsets.UTF_8)));
    return new ProducerRecord<>(deadLetterTopic, null, null, key, null, headers);
  }

  private void sendDeletes(List<Future<RecordMetadata>> sent) {
    reconciler.deletes().forEach((key, value) -> sent.add(producer.send(new ProducerRecord<>(topic, bytes(key),
        bytes(value)))));
    reconciler = null;
  }

  /**
   * A text field of the envelope ({@code op}) or its source ({@code snapshot}), or "" without it. Its last
   * occurrence: the row's columns come before the source and the op, and their strings have their quotes escaped.
   */
  static String envelopeField(String value, String name) {
    String prefix = "\"" + name + "\":\"";
    int at = value.lastIndexOf(prefix);
    if (at < 0) {
      return "";
    }
    int start = at + prefix.length();
    int end = value.indexOf('"', start);
    return end < 0 ? "" : value.substring(start, end);
  }

  private static byte[] bytes(String text) {
    return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
  }

  /** The topic the change events go to. */
  public String topic() {
    return topic;
  }

  /** Change events published since the start. */
  public long published() {
    return published.get();
  }

  /** Completes when the engine stops: normally after {@link #close}, exceptionally when it failed. */
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    engine.close();
    thread.shutdown();
    thread.awaitTermination(30, TimeUnit.SECONDS);
    producer.close(Duration.ofSeconds(30));
  }
}
