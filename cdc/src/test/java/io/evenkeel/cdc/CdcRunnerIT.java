package io.evenkeel.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.MariaDbServer;
import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.PartitionOffset;
import io.evenkeel.schemas.change.SourcePosition;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDC runner against a private MariaDB with a row binlog and a real broker: a snapshot, then the binlog, as
 * Debezium envelopes on Kafka; a restart resumes without a new snapshot and without a gap; a table without a column
 * routing needs is refused at start, naming the missing mapping.
 */
class CdcRunnerIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SingleObjectCodec<CdcPosition> POSITIONS = SingleObjectCodec.of(CdcPosition.class);

  @TempDir Path dir;
  private MariaDbServer mariadb;
  private KafkaBroker kafka;
  private Connection admin;

  @BeforeEach
  void start() throws Exception {
    Assumptions.assumeTrue(MariaDbServer.installed(), "needs mariadbd (apt-get install mariadb-server)");
    mariadb = MariaDbServer.start(dir.resolve("mariadb"), true);
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
    admin = DriverManager.getConnection(mariadb.url("", MariaDbServer.ADMIN));
    sql("CREATE DATABASE shop", "CREATE TABLE shop.orders (seller_id BIGINT NOT NULL, order_id BIGINT NOT NULL,"
        + " created_at DATETIME(3) NOT NULL, updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),"
        + " status INT, title VARCHAR(255), price DECIMAL(12, 2), PRIMARY KEY (seller_id, order_id))");
  }

  @AfterEach
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (mariadb != null) {
      mariadb.close();
    }
  }

  private void sql(String... statements) throws Exception {
    try (Statement statement = admin.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private CdcSettings settings() {
    CdcSettings settings = new CdcSettings();
    settings.source = mariadb.url("shop", MariaDbServer.CDC);
    settings.table = "orders";
    settings.columns = "tenant_id=seller_id,row_id=order_id,created_time=created_at,modified_time=updated_at";
    settings.connectorName = "mariadb";
    settings.bootstrapServers = kafka.bootstrapServers();
    settings.topicPrefix = "cdc";
    settings.stateDir = dir.resolve("state");
    settings.serverId = 5401;
    settings.validate();
    return settings;
  }

  /** A consumer of the runner's topic from its start, in its own group. */
  private KafkaConsumer<byte[], byte[]> events(String group) {
    return consumer(group, "cdc.shop.orders");
  }

  private KafkaConsumer<byte[], byte[]> consumer(String group, String topic) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /**
   * Waits until the runner's stored offset is past its snapshot: a binlog position without Debezium's {@code
   * "snapshot": true} (offsets are flushed every second, later on a loaded machine; a runner killed before that
   * snapshots again, as it should, and the test would not test the resumption).
   */
  private void awaitOffsetPastTheSnapshot() throws Exception {
    Path offsets = dir.resolve("state").resolve("offsets.dat");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (true) {
      String stored = Files.exists(offsets)
          ? new String(Files.readAllBytes(offsets), StandardCharsets.ISO_8859_1) : "";
      if (stored.contains("\"file\"") && !stored.contains("\"snapshot\"")) {
        return;
      }
      assertThat(System.nanoTime()).as("an offset past the snapshot stored within 2 minutes: %s", stored)
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** Reads events until {@code count} have come (or 60 s pass). */
  private static List<JsonNode> read(KafkaConsumer<byte[], byte[]> consumer, int count) throws Exception {
    return read(consumer, count, Duration.ofSeconds(60));
  }

  private static List<JsonNode> read(KafkaConsumer<byte[], byte[]> consumer, int count, Duration timeout)
      throws Exception {
    List<JsonNode> events = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (events.size() < count && System.nanoTime() < deadline) {
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
        events.add(JSON.readTree(record.value())); // the payload alone: schemas.enable=false
      }
    }
    return events;
  }

  @Test
  void snapshotsThenStreamsAndResumesAfterARestartWithoutANewSnapshot() throws Exception {
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at, status, title, price) VALUES"
        + " (1, 10, '2026-11-01 10:00:00.123', 1, 'first', 19.90), (2, 20, '2026-11-02 11:00:00', 2, 'second', NULL)");
    try (KafkaConsumer<byte[], byte[]> consumer = events("cdc-it")) {
      List<JsonNode> events;
      try (CdcRunner runner = CdcRunner.start(settings())) {
        assertThat(runner.topic()).isEqualTo("cdc.shop.orders");
        events = new ArrayList<>(read(consumer, 2));
        sql("INSERT INTO shop.orders (seller_id, order_id, created_at, status, title, price) VALUES"
            + " (1, 11, '2026-11-03 12:00:00', 1, 'third', 5.00)",
            "UPDATE shop.orders SET status = 3, price = 21.50 WHERE seller_id = 1 AND order_id = 10",
            "DELETE FROM shop.orders WHERE seller_id = 2 AND order_id = 20");
        events.addAll(read(consumer, 3));
      }
      // Events of different rows may go to different partitions: each row's come in order.
      assertThat(events).extracting(e -> e.get("op").asText()).containsExactlyInAnyOrder("r", "r", "c", "u", "d");
      assertThat(events.subList(0, 2)).extracting(e -> e.get("op").asText()).containsOnly("r");
      JsonNode snapshot = events.stream().filter(e -> e.get("after").get("order_id").asLong() == 10).findFirst()
          .orElseThrow();
      assertThat(snapshot.get("after").get("order_id").asLong()).isEqualTo(10);
      assertThat(snapshot.get("after").get("price").asText()).isEqualTo("19.90");
      // DATETIME(3): epoch milliseconds of the wall-clock time read as UTC (time.precision.mode=connect).
      assertThat(snapshot.get("after").get("created_at").asLong()).isEqualTo(1_793_527_200_123L);
      JsonNode update = op(events, "u");
      assertThat(update.get("before").get("status").asInt()).isEqualTo(1);
      assertThat(update.get("after").get("status").asInt()).isEqualTo(3);
      assertThat(update.get("source").get("file").asText()).startsWith("binlog.");
      assertThat(update.get("source").get("pos").asLong()).isPositive();
      JsonNode delete = op(events, "d");
      assertThat(delete.get("after").isNull()).isTrue();
      assertThat(delete.get("before").get("order_id").asLong()).isEqualTo(20);

      // Stopped: changes made meanwhile come after the restart, and nothing is snapshotted again.
      sql("UPDATE shop.orders SET title = 'renamed' WHERE seller_id = 1 AND order_id = 11",
          "INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (3, 30, '2026-11-04 00:00:00')");
      try (CdcRunner runner = CdcRunner.start(settings())) {
        // Events after the last stored offset may come again (a close racing a batch): never a snapshot.
        List<JsonNode> resumed = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (resumed.stream().noneMatch(e -> e.get("after").path("title").asText().equals("renamed"))
            || resumed.stream().noneMatch(e -> e.get("after").path("order_id").asLong() == 30)) {
          assertThat(System.nanoTime()).as("the changes made while stopped, within 60 s").isLessThan(deadline);
          resumed.addAll(read(consumer, 1, Duration.ofSeconds(1)));
        }
        resumed.addAll(read(consumer, 1, Duration.ofSeconds(5)));
        assertThat(resumed).extracting(e -> e.get("op").asText()).as("no snapshot again").doesNotContain("r");
      }
    }
  }

  /**
   * A runner killed ({@code kill -9}) after its snapshot, before the table changed, resumes streaming on restart: a
   * row deleted while it was down comes as a delete, not by its absence from a second snapshot (which would leave
   * it in Evenkeel).
   */
  @Test
  void aRunnerKilledAfterItsSnapshotResumesStreamingAndSeesTheDeleteMadeMeanwhile() throws Exception {
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 10, '2026-11-01 10:00:00'),"
        + " (1, 11, '2026-11-01 11:00:00')");
    try (KafkaConsumer<byte[], byte[]> consumer = events("cdc-it-kill")) {
      ChildProcess runner = startProcess("runner-1");
      assertThat(read(consumer, 2)).extracting(e -> e.get("op").asText()).containsOnly("r");
      awaitOffsetPastTheSnapshot();
      runner.kill();
      sql("DELETE FROM shop.orders WHERE seller_id = 1 AND order_id = 11");
      ChildProcess restarted = startProcess("runner-2");
      try {
        List<JsonNode> after = read(consumer, 1);
        assertThat(after).extracting(e -> e.get("op").asText()).as("no second snapshot").containsExactly("d");
        assertThat(after.get(0).get("before").get("order_id").asLong()).isEqualTo(11);
      } finally {
        restarted.stop(Duration.ofSeconds(30));
      }
    }
  }

  /**
   * A runner killed ({@code kill -9}) in the middle of its snapshot snapshots again when restarted (Debezium cannot
   * resume one), and then streams from the new snapshot's position: rows deleted meanwhile are in neither. The runner
   * publishes their deletes, so the topic ends with exactly the table's rows: those the first snapshot had published
   * too, and none deleted and inserted again.
   */
  @Test
  void aRunnerKilledMidSnapshotDeletesTheRowsTheSecondSnapshotLacks() throws Exception {
    int rows = 200_000;
    for (int from = 0; from < rows; from += 5_000) {
      StringBuilder insert = new StringBuilder("INSERT INTO shop.orders (seller_id, order_id, created_at, title) VALUES ");
      for (int i = from; i < from + 5_000; i++) {
        insert.append(i == from ? "" : ", ").append("(").append(i % 100).append(", ").append(i)
            .append(", '2026-11-01 10:00:00', 'row ").append(i).append("')");
      }
      sql(insert.toString());
    }
    try (KafkaConsumer<byte[], byte[]> consumer = events("cdc-it-mid-snapshot")) {
      Map<String, Boolean> topic = new HashMap<>();
      ChildProcess runner = startProcess("runner-1");
      long firstEvents = System.nanoTime() + 60_000_000_000L;
      while (topic.isEmpty()) {
        assertThat(System.nanoTime()).as("the snapshot's first events, within 60 s").isLessThan(firstEvents);
        readInto(consumer, topic);
      }
      runner.kill();
      readInto(consumer, topic);
      assertThat(topic.size()).as("events published before the kill: mid-snapshot").isLessThan(rows);
      // Deleted while the runner is down: rows it had published, rows it had not, and one inserted again.
      List<String> published = topic.keySet().stream().sorted().limit(300).toList();
      for (String key : published) {
        sql("DELETE FROM shop.orders WHERE " + where(key));
      }
      sql("DELETE FROM shop.orders WHERE order_id % 1000 = 999");
      String again = published.get(0);
      JsonNode againKey = JSON.readTree(again);
      sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (" + againKey.get("seller_id") + ", "
          + againKey.get("order_id") + ", '2026-11-02 00:00:00')");

      Set<String> table = new HashSet<>();
      try (Statement statement = admin.createStatement();
          ResultSet result = statement.executeQuery("SELECT seller_id, order_id FROM shop.orders")) {
        while (result.next()) {
          table.add("{\"seller_id\":" + result.getLong(1) + ",\"order_id\":" + result.getLong(2) + "}");
        }
      }
      ChildProcess restarted = startProcess("runner-2");
      try {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (!live(topic).equals(table) && System.nanoTime() < deadline) {
          readInto(consumer, topic);
        }
        assertThat(live(topic)).as("the rows the topic leaves live").hasSize(table.size()).isEqualTo(table);
        assertThat(Files.readString(restarted.log())).contains("rows the table no longer has are deleted");
      } finally {
        restarted.stop(Duration.ofSeconds(30));
      }
    }
  }

  /** Reads what the topic has now (a second of polls): each key, and whether its last event leaves the row live. */
  private static void readInto(KafkaConsumer<byte[], byte[]> consumer, Map<String, Boolean> topic)
      throws Exception {
    long until = System.nanoTime() + 1_000_000_000L;
    while (System.nanoTime() < until) {
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
        String key = JSON.readTree(record.key()).toString();
        topic.put(key, !JSON.readTree(record.value()).get("op").asText().equals("d"));
      }
    }
  }

  private static Set<String> live(Map<String, Boolean> topic) {
    return topic.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).collect(Collectors.toSet());
  }

  private static String where(String key) throws Exception {
    JsonNode fields = JSON.readTree(key);
    return "seller_id = " + fields.get("seller_id") + " AND order_id = " + fields.get("order_id");
  }

  /**
   * After each batch the runner publishes how far in the binlog it has come and where the change topic ends then:
   * a writer that commits and names the binlog position (SHOW MASTER STATUS) or its GTID (@@last_gtid) finds a
   * position at or past it within seconds, with no change left, even when nothing follows its transaction; a
   * restarted runner's positions still name the offsets of what its first run published.
   */
  @Test
  void publishesHowFarItHasComeSoThatAWriterCanWaitForItsCommit() throws Exception {
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 10, '2026-11-01 10:00:00'),"
        + " (2, 20, '2026-11-01 11:00:00')");
    try (KafkaConsumer<byte[], byte[]> consumer = events("positions-it")) {
      try (CdcRunner runner = CdcRunner.start(settings())) {
        assertThat(read(consumer, 2)).hasSize(2);
        admin.setAutoCommit(false);
        sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 11, '2026-11-02 10:00:00')",
            "INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (3, 30, '2026-11-02 11:00:00')",
            "UPDATE shop.orders SET status = 4 WHERE seller_id = 2 AND order_id = 20");
        admin.commit();
        admin.setAutoCommit(true);
        awaitPublishedThrough(committedPosition(), 5);
      }
      // Restarted: the next commit's position names the offsets of the first run's events too.
      try (CdcRunner runner = CdcRunner.start(settings())) {
        sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (4, 40, '2026-11-03 10:00:00')");
        awaitPublishedThrough(committedPosition(), 6);
      }
    }
  }

  /**
   * Two transactions committed while the runner was stopped, read back in one batch: the first position that reaches
   * the first commit names the offsets up to its change, not the second's. (Per batch, a writer waiting for the first
   * commit waited for the second's record too, and forever when that record was a dead letter at a partition's
   * end.)
   */
  @Test
  void aPositionNamesTheOffsetsOfItsTransactionsNotOfTheRestOfTheBatch() throws Exception {
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 10, '2026-11-01 10:00:00')");
    try (KafkaConsumer<byte[], byte[]> consumer = events("per-transaction-it")) {
      try (CdcRunner runner = CdcRunner.start(settings())) {
        assertThat(read(consumer, 1)).hasSize(1);
      }
    }
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (2, 20, '2026-11-02 10:00:00')");
    List<SourcePosition> first = committedPosition();
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (3, 30, '2026-11-02 11:00:00')");
    List<SourcePosition> second = committedPosition();
    try (CdcRunner runner = CdcRunner.start(settings())) {
      awaitPublishedThrough(second, 3);
    }
    CdcPosition firstReaching = publishedPositions().stream().filter(position -> reachesAll(position, first))
        .findFirst().orElseThrow();
    assertThat(reachesAll(firstReaching, second)).as("%s reaches the second commit", firstReaching).isFalse();
    assertThat(firstReaching.getLastOffsets().stream().mapToLong(offset -> offset.getOffset() + 1).sum())
        .as("change events named by the first position that reaches the first commit: the snapshot's and its own")
        .isEqualTo(2);
  }

  /** Every position published so far, oldest first. */
  private List<CdcPosition> publishedPositions() throws Exception {
    List<CdcPosition> all = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> positions = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition partition = new TopicPartition(SourcePosition.topicOf("cdc.shop.orders"), 0);
      positions.assign(List.of(partition));
      positions.seekToBeginning(List.of(partition));
      long end = positions.endOffsets(List.of(partition)).get(partition);
      while (positions.position(partition) < end) {
        for (ConsumerRecord<byte[], byte[]> record : positions.poll(Duration.ofMillis(200))) {
          all.add(POSITIONS.decode(record.value()));
        }
      }
    }
    return all;
  }

  private static boolean reachesAll(CdcPosition published, List<SourcePosition> wanted) {
    return published != null && wanted.stream().allMatch(position -> position.reachedBy(published));
  }

  /** The binlog position and the GTID of the last commit on {@link #admin}'s session. */
  private List<SourcePosition> committedPosition() throws Exception {
    try (Statement statement = admin.createStatement();
        ResultSet master = statement.executeQuery("SHOW MASTER STATUS")) {
      master.next();
      SourcePosition binlog = SourcePosition.binlog(master.getString(1) + ":" + master.getLong(2));
      try (ResultSet gtid = statement.executeQuery("SELECT @@last_gtid")) {
        gtid.next();
        return List.of(binlog, SourcePosition.gtids(gtid.getString(1)));
      }
    }
  }

  /**
   * Waits (10 s at most) for a published position that reaches each of {@code wanted}, and checks that its offsets
   * are where the change topic ends, at least {@code events} in all (a restart may publish the last few again).
   */
  private void awaitPublishedThrough(List<SourcePosition> wanted, int events) throws Exception {
    String topic = SourcePosition.topicOf("cdc.shop.orders");
    long started = System.nanoTime();
    CdcPosition latest = null;
    try (KafkaConsumer<byte[], byte[]> positions = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition partition = new TopicPartition(topic, 0);
      positions.assign(List.of(partition));
      while (!reachesAll(latest, wanted)) {
        assertThat(System.nanoTime() - started).as("a position past %s within 10 s; latest %s", wanted, latest)
            .isLessThan(10_000_000_000L);
        for (ConsumerRecord<byte[], byte[]> record : positions.poll(Duration.ofMillis(100))) {
          latest = POSITIONS.decode(record.value());
        }
      }
      System.out.printf("published through %s %.2f s after the commit%n", SourcePosition.describe(latest),
          (System.nanoTime() - started) / 1e9);
      Map<TopicPartition, Long> ends = positions.endOffsets(positions.partitionsFor("cdc.shop.orders").stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList());
      Map<Integer, Long> lastOffsets = new TreeMap<>();
      ends.forEach((p, end) -> {
        if (end > 0) {
          lastOffsets.put(p.partition(), end - 1);
        }
      });
      assertThat(latest.getLastOffsets().stream().collect(Collectors.toMap(PartitionOffset::getPartition,
          PartitionOffset::getOffset))).as("the offsets at that position: the change topic's last")
          .isEqualTo(lastOffsets);
      assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isGreaterThanOrEqualTo(events);
    }
  }

  /** The password from a file: the runner connects, and its command line names no password. */
  @Test
  void aPasswordFromAFileStaysOffTheCommandLine() throws Exception {
    sql("INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 10, '2026-11-01 10:00:00')");
    Path passwordFile = Files.writeString(dir.resolve("cdc-password"), MariaDbServer.CDC + "\n");
    String withoutPassword = settings().source.replace("&password=" + MariaDbServer.CDC, "");
    try (KafkaConsumer<byte[], byte[]> consumer = events("cdc-it-password")) {
      ChildProcess runner = startProcess("runner", withoutPassword, "--password-file", passwordFile.toString());
      try {
        assertThat(read(consumer, 1)).extracting(e -> e.get("op").asText()).containsExactly("r");
        // What ps shows, in full (ProcessHandle's command line is cut short).
        String commandLine = Files.readString(Path.of("/proc/" + runner.pid() + "/cmdline")).replace('\0', ' ');
        assertThat(commandLine).contains("--password-file").doesNotContain("password=");
      } finally {
        runner.stop(Duration.ofSeconds(30));
      }
    }
    Files.writeString(passwordFile, "wrong\n");
    CdcSettings settings = settings();
    settings.source = withoutPassword;
    settings.passwordFile = passwordFile;
    assertThatThrownBy(() -> CdcRunner.start(settings)).hasMessageContaining("Access denied for user 'cdc'");
  }

  /** The runner as its own process ({@code CdcMain}), as the local stack starts it. */
  private ChildProcess startProcess(String name) throws Exception {
    return startProcess(name, settings().source);
  }

  private ChildProcess startProcess(String name, String source, String... more) throws Exception {
    CdcSettings settings = settings();
    ChildProcess runner = JavaCommand.mainClass(CdcMain.class.getName())
        .classpath(System.getProperty("java.class.path")).heap("256m")
        .args("--source", source, "--table", settings.table, "--columns", settings.columns,
            "--bootstrap-servers", settings.bootstrapServers, "--topic-prefix", settings.topicPrefix,
            "--state-dir", settings.stateDir.toString(), "--server-id", Long.toString(settings.serverId))
        .args(more)
        .start(name, dir.resolve(name + ".log"));
    runner.awaitReady(Duration.ofSeconds(60), () -> Files.readString(runner.log()).contains("cdc: capturing"));
    return runner;
  }

  /**
   * An unmapped 2 MB BLOB is not captured, so its row's events stay small; an UPDATE of a row with a 700 kB title
   * carries it twice (before and after), more than Kafka takes: it goes to the dead-letter topic with its key, binlog
   * position and reason, and the changes after it are captured.
   */
  @Test
  void anEventTooLargeForKafkaIsADeadLetterAndCaptureGoesOn() throws Exception {
    sql("ALTER TABLE shop.orders MODIFY title MEDIUMTEXT, ADD COLUMN photo LONGBLOB",
        "INSERT INTO shop.orders (seller_id, order_id, created_at, title, photo) VALUES"
            + " (1, 10, '2026-11-01 10:00:00', 'small', REPEAT('p', 2000000))");
    kafka.createTopic("transaction-logs-dead-letters", 1);
    try (KafkaConsumer<byte[], byte[]> consumer = events("cdc-it-large");
        KafkaConsumer<byte[], byte[]> deadLetters = consumer("cdc-it-large-dead", "transaction-logs-dead-letters");
        CdcRunner runner = CdcRunner.start(settings())) {
      JsonNode snapshot = read(consumer, 1).get(0);
      assertThat(snapshot.get("after").get("order_id").asLong()).isEqualTo(10);
      assertThat(snapshot.get("after").has("photo")).as("the unmapped BLOB is not captured").isFalse();

      sql("INSERT INTO shop.orders (seller_id, order_id, created_at, title) VALUES (1, 11, '2026-11-01 11:00:00',"
          + " REPEAT('t', 700000))",
          "UPDATE shop.orders SET status = 2 WHERE seller_id = 1 AND order_id = 11",
          "INSERT INTO shop.orders (seller_id, order_id, created_at) VALUES (1, 12, '2026-11-01 12:00:00')");
      List<JsonNode> events = read(consumer, 2);
      assertThat(events).extracting(e -> e.get("op").asText() + " " + e.get("after").get("order_id").asLong())
          .containsExactly("c 11", "c 12");
      List<ConsumerRecord<byte[], byte[]>> letters = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (letters.isEmpty() && System.nanoTime() < deadline) {
        deadLetters.poll(Duration.ofMillis(200)).forEach(letters::add);
      }
      assertThat(letters).hasSize(1);
      ConsumerRecord<byte[], byte[]> letter = letters.get(0);
      assertThat(JSON.readTree(letter.key()).get("order_id").asLong()).isEqualTo(11);
      assertThat(letter.value()).isNull();
      assertThat(header(letter, CdcRunner.REASON_HEADER)).contains("--max-event-bytes 1000000");
      assertThat(header(letter, CdcRunner.SOURCE_HEADER)).contains("cdc.shop.orders", "binlog binlog.", "position");
    }
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  private static JsonNode op(List<JsonNode> events, String op) {
    return events.stream().filter(e -> e.get("op").asText().equals(op)).findFirst().orElseThrow();
  }

  @Test
  void aTableWithoutAColumnRoutingNeedsIsRefusedAtStartNamingTheMapping() throws Exception {
    CdcSettings settings = settings();
    settings.columns = "tenant_id=seller_id,row_id=order_id";
    assertThatThrownBy(() -> CdcRunner.start(settings)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shop.orders has no column created_time, which routing needs: map one to it");
    settings.columns = "tenant_id=seller_id,row_id=order_id,created_time=created_on";
    assertThatThrownBy(() -> CdcRunner.start(settings)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("created_time is mapped to shop.orders.created_on, which does not exist");
  }
}
