package io.evenkeel.launcher.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.client.SearchableClient;
import io.evenkeel.embedded.MariaDbServer;
import io.evenkeel.query.testing.QueryGenerator;
import io.evenkeel.query.testing.ReferenceDatabase;
import io.evenkeel.query.testing.ResultRows;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * CDC end to end, as a user runs it: a MariaDB table (a private server with a row binlog) of other column names, with
 * DATETIME and TIMESTAMP times, is captured by {@code bin/evenkeel local --cdc}: 20,000 rows of 200 tenants
 * snapshotted, then 5,000 updates (some rows several times), an {@code ALTER TABLE ... ADD COLUMN} and 1,000 deletes
 * streamed, while the CDC runner and then the ingest job are killed ({@code kill -9}) and restarted by the stack.
 * Once the pipeline has caught up (nothing lost: the counts and sums agree; nothing twice: rows are upserts by key),
 * generated queries over every supported construct give the same rows on the query service as on MariaDB (through
 * a view that names the columns as {@code transaction_logs} does), and a row Evenkeel cannot route is a dead letter.
 */
class LocalStackCdcIT {
  private static final int ROWS = 20_000;
  private static final int TENANTS = 200;
  private static final int QUERIES = 60;
  private static final DateTimeFormatter SQL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
      .withZone(ZoneOffset.UTC);

  @TempDir Path dir;
  @RegisterExtension final StartedStacks stacks = new StartedStacks();
  private MariaDbServer mariadb;
  private StackProcess stack;
  private Connection source;

  @AfterEach
  void stop() throws Exception {
    if (source != null) {
      source.close();
    }
    if (mariadb != null) {
      mariadb.close();
    }
  }

  @Test
  void aCapturedTableAnswersAsMariaDbDoesAfterSnapshotUpdatesAnAlterAndDeletes() throws Exception {
    Assumptions.assumeTrue(MariaDbServer.installed(), "needs mariadbd (apt-get install mariadb-server)");
    mariadb = MariaDbServer.start(dir.resolve("mariadb"), true);
    source = DriverManager.getConnection(mariadb.url("", MariaDbServer.ADMIN));
    execute(source, "SET time_zone = '+00:00'",
        "CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
        "CREATE TABLE shop.orders (seller_id BIGINT NOT NULL, order_id BIGINT NOT NULL,"
            + " created_at DATETIME(3) NOT NULL, updated_at TIMESTAMP(3) NOT NULL, status INT, buyer_id BIGINT,"
            + " seller_nick VARCHAR(64), buyer_nick VARCHAR(64), title VARCHAR(255), price DECIMAL(18, 2),"
            + " quantity INT, group_id BIGINT, attributes VARCHAR(1024), PRIMARY KEY (seller_id, order_id))");
    Random random = new Random(23);
    Map<List<Long>, TransactionLogChange> live = new LinkedHashMap<>();
    List<TransactionLogChange> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      // Tenants 3, 7 and 11 are large; the others share the rest.
      long tenant = random.nextInt(3) == 0 ? List.of(3L, 7L, 11L).get(random.nextInt(3)) : 1 + random.nextInt(TENANTS);
      TransactionLogChange row = TestRows.random(random, tenant, i, 30);
      rows.add(row);
      live.put(List.of(tenant, (long) i), row);
    }
    insert(rows);

    int base = StackPorts.freeBase();
    long started = System.nanoTime();
    stack = stacks.start(dir, "local", "--no-replay", "--base-port", Integer.toString(base),
        "--data-dir", dir.resolve("data").toString(), "--replicas", "0", "--shards", "4", "--status-interval", "5s",
        "--cdc", mariadb.url("shop", MariaDbServer.CDC).replace("&password=" + MariaDbServer.CDC, ""),
        "--cdc-password-file", Files.writeString(dir.resolve("cdc-password"), MariaDbServer.CDC).toString(),
        "--cdc-table", "orders", "--cdc-columns",
        "tenant_id=seller_id,row_id=order_id,created_time=created_at,modified_time=updated_at");
    stack.awaitOutput("Evenkeel is ready", 240);
    System.out.printf("stack with CDC ready in %.1f s%n", (System.nanoTime() - started) / 1e9);

    // Streamed: updates (a few hot rows many times), a new column half way, deletes.
    List<List<Long>> keys = new ArrayList<>(live.keySet());
    List<List<Long>> hot = keys.subList(0, 50);
    try (PreparedStatement update = source.prepareStatement("UPDATE shop.orders SET status = ?, price = ?,"
        + " quantity = ?, updated_at = ? WHERE seller_id = ? AND order_id = ?")) {
      source.setAutoCommit(false);
      for (int i = 0; i < 5_000; i++) {
        if (i == 1_500) {
          // Killed while it streams: a runner killed during its snapshot (slow on a busy machine) snapshots again.
          source.commit();
          awaitOffsetPastTheSnapshot(dir.resolve("data").resolve("cdc").resolve("offsets.dat"));
          kill("io.evenkeel.cdc.CdcMain");
        }
        if (i == 2_500) {
          source.commit();
          execute(source, "ALTER TABLE shop.orders ADD COLUMN note VARCHAR(20) NULL");
        }
        if (i == 3_500) {
          kill("io.evenkeel.ingest.IngestJobMain");
        }
        List<Long> key = random.nextInt(5) == 0 ? hot.get(random.nextInt(hot.size()))
            : keys.get(random.nextInt(keys.size()));
        TransactionLogChange row = live.get(key);
        TransactionLogChange next = TransactionLogChange.newBuilder(row)
            .setStatus(random.nextInt(6) == 0 ? null : random.nextInt(5))
            .setPrice(random.nextInt(6) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000), 2))
            .setQuantity(random.nextInt(6) == 0 ? null : 1 + random.nextInt(10))
            .setModifiedTime(row.getModifiedTime() + 1 + random.nextInt(60_000)).build();
        update.setObject(1, next.getStatus(), Types.INTEGER);
        update.setBigDecimal(2, next.getPrice());
        update.setObject(3, next.getQuantity(), Types.INTEGER);
        update.setString(4, SQL_TIME.format(Instant.ofEpochMilli(next.getModifiedTime())));
        update.setLong(5, key.get(0));
        update.setLong(6, key.get(1));
        update.executeUpdate();
        live.put(key, next);
        if (i % 100 == 99) {
          source.commit();
        }
      }
      source.commit();
    }
    try (PreparedStatement delete = source.prepareStatement(
        "DELETE FROM shop.orders WHERE seller_id = ? AND order_id = ?")) {
      for (int i = 0; i < 1_000; i++) {
        List<Long> key = keys.get(random.nextInt(keys.size()));
        delete.setLong(1, key.get(0));
        delete.setLong(2, key.get(1));
        delete.executeUpdate();
        live.remove(key);
      }
      source.commit();
      source.setAutoCommit(true);
    }
    // Where the binlog is after the last commit, as a writer would ask: the file and position, and its GTID.
    String committed;
    String committedGtid;
    try (Statement statement = source.createStatement()) {
      try (ResultSet master = statement.executeQuery("SHOW MASTER STATUS")) {
        master.next();
        committed = master.getString(1) + ":" + master.getLong(2);
      }
      try (ResultSet gtid = statement.executeQuery("SELECT @@last_gtid")) {
        gtid.next();
        committedGtid = gtid.getString(1);
      }
    }

    stack.awaitOutput("cdc restarted", 120);
    stack.awaitOutput("ingest-job restarted", 120);

    // A row MariaDB takes and Evenkeel cannot route (created a day ahead of the clock): a dead letter with the reason.
    long badRow = ROWS + 1;
    execute(source, "INSERT INTO shop.orders (seller_id, order_id, created_at, updated_at) VALUES (1, " + badRow
        + ", NOW(3) + INTERVAL 1 DAY, NOW(3))");

    // The view that answers as transaction_logs would, on MariaDB (without the row Evenkeel refused).
    execute(source, "CREATE DATABASE cmp CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
        "CREATE VIEW cmp.transaction_logs AS SELECT seller_id AS tenant_id, order_id AS row_id,"
            + " CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED) AS created_time,"
            + " CAST(UNIX_TIMESTAMP(updated_at) * 1000 AS SIGNED) AS modified_time, status, buyer_id, seller_nick,"
            + " buyer_nick, title, price, quantity, group_id, attributes, " + attributeColumns()
            + " FROM shop.orders WHERE order_id <> " + badRow);
    Connection compare = DriverManager.getConnection(mariadb.url("cmp", MariaDbServer.ADMIN));
    execute(compare, "SET time_zone = '+00:00'");
    try (ReferenceDatabase reference = ReferenceDatabase.of(compare, "cmp")) {
      SqlClient service = new SqlClient(base + 4);
      String totals = "SELECT COUNT(*), SUM(price), SUM(status), MAX(modified_time), SUM(quantity)"
          + " FROM transaction_logs";
      List<List<String>> expected = ResultRows.of(reference.query(totals));
      assertThat(expected.get(0).get(0)).isEqualTo(Integer.toString(live.size()));
      // Read-your-writes for the captured table: once /searchable answers for the last commit's binlog position,
      // every change is found at once.
      SearchableClient searchable = SearchableClient.of(URI.create("http://127.0.0.1:" + (base + 4)), null);
      long caughtUpFrom = System.nanoTime();
      SearchableClient.Answer caughtUp = searchable.awaitBinlog(null, committed, Duration.ofSeconds(60));
      for (int retry = 0; retry < 2 && !caughtUp.searchable(); retry++) {
        caughtUp = searchable.awaitBinlog(null, committed, Duration.ofSeconds(60));
      }
      assertThat(caughtUp.searchable()).as("%s searchable within 180 s: %s; the launcher said:%n%s%n%s%n%s",
          committed, caughtUp.body(), String.join("\n", stack.output), tail("cdc"), tail("ingest-job")).isTrue();
      SqlClient.Answer totalsNow = service.sql(totals);
      assertThat(ResultRows.of(totalsNow.body().get("rows"))).as("totals as soon as %s is searchable", committed)
          .isEqualTo(expected);
      SearchableClient.Answer byGtid = searchable.awaitGtid(null, committedGtid, Duration.ofSeconds(5));
      assertThat(byGtid.searchable()).as("the same commit by its GTID %s: %s", committedGtid, byGtid.body()).isTrue();
      System.out.printf("%s searchable %.1f s after the last delete (%s)%n", committed,
          (System.nanoTime() - caughtUpFrom) / 1e9, caughtUp.body());

      QueryGenerator generator = new QueryGenerator(new Random(24),
          LongStream.rangeClosed(1, TENANTS).boxed().toList());
      List<String> mismatches = new ArrayList<>();
      int nonEmpty = 0;
      for (int i = 0; i < QUERIES; i++) {
        QueryGenerator.Generated query = generator.next();
        List<List<String>> want = ResultRows.of(reference.query(query.reference()));
        SqlClient.Answer answer = service.post(query.sql(), query.params(), false);
        if (answer.status() != 200) {
          mismatches.add(query.sql() + " " + query.params() + "\n  status " + answer.status() + ": " + answer.body());
          continue;
        }
        List<List<String>> got = ResultRows.of(answer.body().get("rows"));
        if (!query.ordered()) {
          want.sort(ResultRows.ORDER);
          got.sort(ResultRows.ORDER);
        }
        if (!want.equals(got)) {
          mismatches.add(query.sql() + " " + query.params() + "\n  expected " + want.size() + " rows: "
              + ResultRows.head(want) + "\n  actual " + got.size() + " rows:   " + ResultRows.head(got));
        }
        nonEmpty += want.isEmpty() ? 0 : 1;
      }
      assertThat(mismatches).as("%d of %d queries differ", mismatches.size(), QUERIES).isEmpty();
      assertThat(deadLetterReasons(base)).singleElement().asString()
          .contains("row 1:" + badRow).contains("ahead of the ingest job's clock");
      assertThat(nonEmpty).as("queries with a non-empty answer").isGreaterThan(QUERIES / 2);
    }
  }

  /** The reasons of the stack's dead letters (the ingest job's default dead-letter topic). */
  private static List<String> deadLetterReasons(int base) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + (base + 1));
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "cdc-it-dead-letters");
    List<String> reasons = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of("transaction-logs-dead-letters"));
      long deadline = System.nanoTime() + 30_000_000_000L;
      // At least once: a job restarted since may have sent one twice; one poll after the first gets those too.
      while (System.nanoTime() < deadline && reasons.isEmpty()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          reasons.add(new String(record.headers().lastHeader("evenkeel.reason").value(), StandardCharsets.UTF_8));
        }
      }
      consumer.poll(Duration.ofSeconds(1)).forEach(record -> reasons.add(
          new String(record.headers().lastHeader("evenkeel.reason").value(), StandardCharsets.UTF_8)));
    }
    return reasons.stream().distinct().toList();
  }

  /** The end of a component's log, for a failure's message. */
  private String tail(String component) throws Exception {
    List<String> lines = Files.readAllLines(dir.resolve("data/logs/" + component + ".log"));
    return component + ".log:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** Waits (at most 2 minutes) until the runner has stored a binlog offset past its snapshot. */
  private static void awaitOffsetPastTheSnapshot(Path offsets) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (true) {
      String stored = Files.exists(offsets) ? new String(Files.readAllBytes(offsets), StandardCharsets.ISO_8859_1)
          : "";
      if (stored.contains("\"file\"") && !stored.contains("\"snapshot\"")) {
        return;
      }
      assertThat(System.nanoTime()).as("an offset past the snapshot in %s: %s", offsets, stored)
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** Kills ({@code kill -9}) the stack's process whose command line names {@code mainClass}. */
  private void kill(String mainClass) {
    ProcessHandle victim = stack.process.descendants()
        .filter(p -> p.info().commandLine().map(line -> line.contains(mainClass)).orElse(false))
        .findFirst().orElseThrow(() -> new AssertionError("no process of " + mainClass));
    victim.destroyForcibly();
  }

  /** One column per attribute key, as the reference database has them ({@code attr__color}). */
  private static String attributeColumns() {
    List<String> columns = new ArrayList<>();
    for (String key : ReferenceDatabase.ATTRIBUTE_KEYS) {
      columns.add("NULLIF(REGEXP_REPLACE(REGEXP_SUBSTR(attributes, '(^|;)" + key + ":[^;]*'), '^;?" + key + ":', ''),"
          + " '') AS attr__" + key);
    }
    return String.join(", ", columns);
  }

  private void insert(List<TransactionLogChange> rows) throws Exception {
    try (PreparedStatement insert = source.prepareStatement("INSERT INTO shop.orders VALUES"
        + " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      for (TransactionLogChange row : rows) {
        insert.setLong(1, row.getTenantId());
        insert.setLong(2, row.getRowId());
        insert.setString(3, SQL_TIME.format(Instant.ofEpochMilli(row.getCreatedTime())));
        insert.setString(4, SQL_TIME.format(Instant.ofEpochMilli(row.getModifiedTime())));
        insert.setObject(5, row.getStatus(), Types.INTEGER);
        insert.setObject(6, row.getBuyerId(), Types.BIGINT);
        insert.setString(7, row.getSellerNick());
        insert.setString(8, row.getBuyerNick());
        insert.setString(9, row.getTitle());
        insert.setBigDecimal(10, row.getPrice());
        insert.setObject(11, row.getQuantity(), Types.INTEGER);
        insert.setObject(12, row.getGroupId(), Types.BIGINT);
        insert.setString(13, row.getAttributes());
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  private static void execute(Connection connection, String... statements) throws Exception {
    try (Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }
}
