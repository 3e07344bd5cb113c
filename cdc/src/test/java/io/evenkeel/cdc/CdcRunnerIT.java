package io.evenkeel.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.MariaDbServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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

  @TempDir Path dir;
  private MariaDbServer mariadb;
  private KafkaBroker kafka;
  private Connection admin;

  @BeforeEach
  void start() throws Exception {
    Assumptions.assumeTrue(MariaDbServer.installed(), "needs mariadbd (apt-get install mariadb-server)");
    mariadb = MariaDbServer.start(dir.resolve("mariadb"), true);
    kafka = KafkaBroker.builder(dir.resolve("kafka")).ports(KafkaBroker.freePort(), KafkaBroker.freePort()).start();
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
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of("cdc.shop.orders"));
    return consumer;
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
        List<JsonNode> resumed = read(consumer, 2);
        assertThat(resumed).extracting(e -> e.get("op").asText()).containsExactlyInAnyOrder("u", "c");
        assertThat(op(resumed, "u").get("after").get("title").asText()).isEqualTo("renamed");
        assertThat(read(consumer, 1, Duration.ofSeconds(5))).as("no snapshot again").isEmpty();
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
      Thread.sleep(3_000); // an offset flush
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

  /** The runner as its own process ({@code CdcMain}), as the local stack starts it. */
  private ChildProcess startProcess(String name) throws Exception {
    CdcSettings settings = settings();
    ChildProcess runner = ChildProcess.start(name, JavaCommand.mainClass(CdcMain.class.getName())
        .classpath(System.getProperty("java.class.path")).heap("256m")
        .args("--source", settings.source, "--table", settings.table, "--columns", settings.columns,
            "--bootstrap-servers", settings.bootstrapServers, "--topic-prefix", settings.topicPrefix,
            "--state-dir", settings.stateDir.toString(), "--server-id", Long.toString(settings.serverId))
        .toList(), dir.resolve(name + ".log"));
    runner.awaitReady(Duration.ofSeconds(60), () -> Files.readString(runner.log()).contains("cdc: capturing"));
    return runner;
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
