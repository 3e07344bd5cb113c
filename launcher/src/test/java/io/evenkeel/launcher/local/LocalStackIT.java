package io.evenkeel.launcher.local;

import static io.evenkeel.launcher.local.EvenkeelCommand.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.evenkeel.client.ProducedOffsets;
import io.evenkeel.client.SearchableClient;
import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.launcher.local.EvenkeelCommand.Run;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.testing.ConsolePage;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.WriteRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * {@code bin/evenkeel local} as a user runs it: a process on ports chosen at run time, from the built jars. What
 * arrived is read both by SQL and from the shard servers themselves (gRPC Search), so a row on two shards shows.
 */
class LocalStackIT {
  private static final int SERVERS = 3;
  private static final int SHARDS = 12;
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @TempDir Path dir;
  @RegisterExtension final StartedStacks stacks = new StartedStacks();
  private StackProcess stack;
  private ClusterClient cluster = new ClusterClient();
  private final List<ShardAddress> servers = new ArrayList<>();
  private Path adminKey;

  @AfterEach
  void closeCluster() {
    cluster.close();
  }

  /**
   * Starts an empty stack; loads 50,000 rows of 500 tenants (with three malformed lines skipped), then UPDATEs and
   * DELETEs of some of them; after each load the shards hold exactly the rows the files say, each once. SIGINT then
   * stops every component: no process the launcher started is left.
   */
  @Test
  void loadedRowsArriveExactlyAndSigintLeavesNoProcessBehind() throws Exception {
    int base = StackPorts.freeBase();
    Path data = dir.resolve("data");
    long started = System.nanoTime();
    // Several shard servers, as on more machines (the default is one): the rows of each shard on its own server.
    // --secure: the whole pipeline over mutual TLS, the query service with keys.
    stack = stacks.start(dir, "local", "--no-replay", "--base-port", Integer.toString(base),
        "--data-dir", data.toString(), "--status-interval", "3s", "--shard-servers", Integer.toString(SERVERS),
        "--shards", Integer.toString(SHARDS), "--secure");
    stack.awaitOutput("Evenkeel is ready", 180);
    System.out.printf("local stack ready in %.1f s%n", (System.nanoTime() - started) / 1e9);
    List<ProcessHandle> children = stack.process.descendants().toList();
    assertThat(children).as("zookeeper, kafka, 3 shard servers, ingest job").hasSizeGreaterThanOrEqualTo(6);
    assertListensOnLoopbackOnly(children, base);
    for (int i = 0; i < SERVERS; i++) {
      servers.add(new ShardAddress("127.0.0.1", base + 10 + i));
    }
    adminKey = data.resolve("admin.key");
    // The path of the admin key's file, never the key: the launcher's output often goes to a log others read.
    assertThat(String.join("\n", stack.output)).as("--secure prints where the admin key is")
        .contains("admin key       in " + adminKey).doesNotContain(Files.readString(adminKey).strip());
    Path tls = data.resolve("tls");
    cluster.close();
    cluster = new ClusterClient(new ClientTls(tls.resolve("ca.pem"), tls.resolve("launcher.pem"),
        tls.resolve("launcher.key")));
    assertShardServersRefuseStrangers(tls);
    // --secure: the Flink web UI (and its REST API, which could cancel the job) only for holders of a certificate.
    String ui = "https://127.0.0.1:" + (base + 3);
    assertFlinkUiIsViewOnly(webUiClient(tls, true), ui);
    assertThatThrownBy(() -> webUiClient(tls, false).send(HttpRequest.newBuilder(URI.create(ui + "/jobs/overview"))
        .build(), HttpResponse.BodyHandlers.ofString())).as("no client certificate").isInstanceOf(IOException.class);
    // Plain HTTP reaches neither the web UI nor the query service (HTTPS, so keys never travel in clear text).
    for (String plain : List.of("http://127.0.0.1:" + (base + 3) + "/jobs/overview",
        "http://127.0.0.1:" + (base + 4) + "/health")) {
      try {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(plain)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as("plain HTTP to " + plain + ": " + answer.body()).isNotEqualTo(200);
      } catch (IOException refused) {
        // Refused at the transport: as good.
      }
    }
    try (CuratorFramework stranger = ZooKeeperClients.start("127.0.0.1:" + base, null, new RetryOneTime(100))) {
      assertThatThrownBy(() -> stranger.getChildren().forPath(StackOptions.ZOOKEEPER_ROOT))
          .as("Evenkeel's ZooKeeper nodes are its own").isInstanceOf(KeeperException.NoAuthException.class);
    }
    assertKafkaRefusesStrangers(StackInfo.read(data).bootstrapServers());
    assertAnotherUserCannotRead(data.resolve("kafka-client.properties"));

    Map<List<Long>, String> expected = new HashMap<>();
    // A bad line stops a load by default, after sending the rows before it.
    Path stops = dir.resolve("stops.jsonl");
    Files.writeString(stops, row(99_999, 1, 0) + "\n" + row(99_999, 2, 0) + "\n{\"tenant_id\": 99999, \"row_id\": 3\n"
        + row(99_999, 4, 0) + "\n");
    Run stopped = evenkeel("load", stops.toString(), "--data-dir", data.toString(), "--key-file", adminKey.toString());
    assertThat(stopped.exitCode()).as(stopped.output()).isEqualTo(1);
    assertThat(stopped.output()).contains("stopped at line 3: bad JSON").contains("2 rows were sent before it");
    expected.put(List.of(99_999L, 1L), summary(row(99_999, 1, 0)));
    expected.put(List.of(99_999L, 2L), summary(row(99_999, 2, 0)));

    Path rows = dir.resolve("rows.jsonl");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(rows))) {
      for (int i = 0; i < 50_000; i++) {
        String line = row(1_000 + i % 500, i, 0);
        out.println(line);
        expected.put(List.of(1_000L + i % 500, (long) i), summary(line));
        if (i % 20_000 == 7) {
          out.println("{\"tenant_id\": 5, \"row_id\": \"not a number\", \"created_time\": 1}");
        }
      }
    }
    Run load = evenkeel("load", rows.toString(), "--data-dir", data.toString(), "--skip-bad", "--wait",
        "--key-file", adminKey.toString());
    assertThat(load.exitCode()).as(load.output()).isEqualTo(0);
    assertThat(load.output()).contains("loaded 50,000 rows").contains("skipped 3 malformed lines")
        .contains("row_id must be an integer; got string \"not a number\"");
    assertThat(load.output()).contains("all 50,000 loaded rows searchable");
    load.output().lines().filter(l -> l.startsWith("loaded") || l.startsWith("all ")).forEach(System.out::println);
    // --wait returned: the shards hold exactly the file's rows now, without waiting further.
    assertThat(shardContents()).isEqualTo(expected);

    Path changes = dir.resolve("changes.jsonl");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(changes))) {
      for (int i = 0; i < 50_000; i += 7) {
        long tenant = 1_000 + i % 500;
        if (i % 3 == 0) {
          out.printf("{\"op\": \"DELETE\", \"tenant_id\": %d, \"row_id\": %d, \"created_time\": %d}%n", tenant, i,
              1_700_000_000_000L + i);
          expected.remove(List.of(tenant, (long) i));
        } else {
          String line = row(tenant, i, 1).replace("{", "{\"op\": \"UPDATE\", ");
          out.println(line);
          expected.put(List.of(tenant, (long) i), summary(line));
        }
      }
    }
    Run second = evenkeel("load", changes.toString(), "--data-dir", data.toString(), "--wait", "--key-file",
        adminKey.toString());
    assertThat(second.exitCode()).as(second.output()).isEqualTo(0);
    assertThat(shardContents()).isEqualTo(expected);

    // The same through SQL: counts per tenant, and the rows of a few tenants.
    Map<Long, Long> counts = new HashMap<>();
    expected.keySet().forEach(key -> counts.merge(key.get(0), 1L, Long::sum));
    Map<Long, Long> sqlCounts = new HashMap<>();
    for (JsonNode row : sql(data, "SELECT tenant_id, COUNT(*) AS n FROM transaction_logs GROUP BY tenant_id")) {
      sqlCounts.put(row.get(0).asLong(), row.get(1).asLong());
    }
    assertThat(sqlCounts).isEqualTo(counts);
    for (long tenant : List.of(1_000L, 1_237L, 1_499L)) {
      List<Long> sqlRows = new ArrayList<>();
      for (JsonNode row : sql(data,
          "SELECT row_id FROM transaction_logs WHERE tenant_id = " + tenant + " ORDER BY row_id")) {
        sqlRows.add(row.get(0).asLong());
      }
      assertThat(sqlRows).as("rows of tenant %d", tenant).containsExactlyElementsOf(expected.keySet().stream()
          .filter(key -> key.get(0) == tenant).map(key -> key.get(1)).sorted().toList());
    }

    // The console's cluster view over HTTPS with the admin key: every copy's Stats, asked over mutual TLS.
    HttpClient https = webUiClient(tls, false);
    String service = "https://127.0.0.1:" + (base + 4);
    HttpResponse<String> page = https.send(HttpRequest.newBuilder(URI.create(service + "/console")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy ->
        assertThat(policy).startsWith("default-src 'self'"));
    HttpRequest clusterView = HttpRequest.newBuilder(URI.create(service + "/cluster"))
        .header("Authorization", "Bearer " + Files.readString(adminKey).strip()).build();
    // Each copy answers Stats under a deadline of its own: on a busy machine one may miss it; ask again.
    long viewDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (true) {
      HttpResponse<String> overview = https.send(clusterView, HttpResponse.BodyHandlers.ofString());
      assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
      long primaryDocs = 0;
      int copies = 0;
      List<String> errors = new ArrayList<>();
      for (JsonNode shard : new ObjectMapper().readTree(overview.body()).at("/cluster/shards")) {
        for (JsonNode copy : shard.get("copies")) {
          if (!copy.get("error").isNull()) {
            errors.add("shard " + shard.get("shard") + " on " + copy.get("server") + ": " + copy.get("error"));
          }
          copies++;
          if (copy.get("role").asText().equals("primary")) {
            primaryDocs += copy.at("/stats/docs").asLong();
          }
        }
      }
      if (errors.isEmpty() || System.nanoTime() > viewDeadline) {
        assertThat(errors).as("copies that did not answer Stats").isEmpty();
        assertThat(copies).as("12 primaries and their replicas").isEqualTo(2 * SHARDS);
        assertThat(primaryDocs).isEqualTo(expected.size());
        break;
      }
      Thread.sleep(1_000);
    }
    assertProducersReadTheirWrites(https, service, data);

    stack.sendSigint();
    assertThat(stack.process.waitFor(300, TimeUnit.SECONDS)).as("the launcher exits after SIGINT").isTrue();
    assertThat(String.join("\n", stack.output)).contains("zookeeper       stopped").contains("stopped");
    for (ProcessHandle child : children) {
      assertThat(child.isAlive()).as("process %d (%s) after SIGINT", child.pid(),
          child.info().commandLine().orElse("?")).isFalse();
    }
    assertThat(Files.exists(data.resolve(StackInfo.FILE))).as("stack.json removed").isFalse();
  }

  /**
   * The README's first command (its default layout: two shard servers, 8 shards with a replica each) for as long as
   * the checks take: the replayer's rows reach the shards, the job's metrics move, the console shows it all, every
   * replica gets in sync, API keys hold; SIGINT then stops it with nothing left.
   */
  @Test
  void theReplayedDefaultStackServesUntilSigintAndLeavesNothing() throws Exception {
    int base = StackPorts.freeBase();
    String[] admin = ApiKeys.newKey("ops", "admin");
    String[] shop = ApiKeys.newKey("shop7", "tenant 7");
    Path keys = dir.resolve("keys");
    Files.write(keys, List.of(admin[1], shop[1]));
    Path adminKey = dir.resolve("admin.key");
    Files.writeString(adminKey, admin[0] + "\n");
    Path data = dir.resolve("data");
    stack = stacks.start(dir, "local", "--base-port", Integer.toString(base), "--data-dir",
        data.toString(), "--replay-rate", "300", "--status-interval", "3s", "--api-keys", keys.toString());
    stack.awaitOutput("Evenkeel is ready", 180);
    List<ProcessHandle> children = stack.process.descendants().toList();
    assertThat(children).as("zookeeper, kafka, two shard servers, ingest job, query service, replayer")
        .hasSizeGreaterThanOrEqualTo(7);
    assertThat(String.join("\n", stack.output)).contains("shard-server-0  ready").contains("shard-server-1  ready")
        .doesNotContain("shard-server-2");
    assertFlinkUiIsViewOnly(HttpClient.newHttpClient(), "http://127.0.0.1:" + (base + 3));
    assertJobMetricsMove(new FlinkJobMetrics(HttpClient.newHttpClient(), "http://127.0.0.1:" + (base + 3)),
        "127.0.0.1:" + (base + 1));
    assertConsoleShowsTheStack("http://127.0.0.1:" + (base + 4) + "/console", admin[0]);

    // --api-keys: sql without a key is refused; with the admin's key file it reads; a tenant key stays in its tenant.
    Run denied = evenkeel("sql", "--data-dir", data.toString(), "SELECT COUNT(*) FROM transaction_logs");
    assertThat(denied.exitCode()).as(denied.output()).isNotZero();
    assertThat(denied.output()).contains("401");
    Run allowed = evenkeel("sql", "--data-dir", data.toString(), "--key-file", adminKey.toString(),
        "SELECT COUNT(*) FROM transaction_logs");
    assertThat(allowed.exitCode()).as(allowed.output()).isEqualTo(0);
    Path shopKey = dir.resolve("shop.key");
    Files.writeString(shopKey, shop[0]);
    Run tenant = evenkeel("sql", "--json", "--data-dir", data.toString(), "--key-file", shopKey.toString(),
        "SELECT DISTINCT tenant_id FROM transaction_logs");
    assertThat(tenant.exitCode()).as(tenant.output()).isEqualTo(0);
    for (JsonNode row : new ObjectMapper().readTree(tenant.output()).get("rows")) {
      assertThat(row.get(0).asLong()).isEqualTo(7);
    }
    Run other = evenkeel("sql", "--data-dir", data.toString(), "--key-file", shopKey.toString(),
        "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 8");
    assertThat(other.output()).contains("403");

    // The status line: the replayed rows on the shards, every replica in sync.
    stack.awaitOutput("8 primaries, 8 replicas (8 in sync", 180);
    assertThat(lastStatusDocs()).as("documents in the last status line").isPositive();
    stack.sendSigint();
    assertThat(stack.process.waitFor(300, TimeUnit.SECONDS)).as("the launcher exits after SIGINT").isTrue();
    assertThat(String.join("\n", stack.output)).contains("replayer        stopped");
    for (ProcessHandle child : children) {
      assertThat(child.isAlive()).as("process %d after SIGINT", child.pid()).isFalse();
    }
    assertEverythingIsPrivate(data);
  }

  /**
   * --secure's Kafka takes only the stack's SASL user: a client without credentials gets no answer, one with a wrong
   * password is refused; so no other local process can produce, read or move the written offsets.
   */
  private static void assertKafkaRefusesStrangers(String bootstrapServers) {
    Map<String, Object> plain = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
    try (Admin stranger = Admin.create(plain)) {
      assertThatThrownBy(() -> stranger.listTopics().names().get(10, TimeUnit.SECONDS))
          .as("a client without credentials").isInstanceOf(java.util.concurrent.ExecutionException.class)
          .cause().isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }
    Map<String, Object> guessing = new HashMap<>(plain);
    guessing.putAll(KafkaBroker.saslClient("evenkeel", "guess"));
    try (Admin stranger = Admin.create(guessing)) {
      assertThatThrownBy(() -> stranger.listTopics().names().get(10, TimeUnit.SECONDS))
          .as("a client with a wrong password").isInstanceOf(java.util.concurrent.ExecutionException.class)
          .cause().isInstanceOf(SaslAuthenticationException.class);
    }
  }

  /**
   * Another local user ({@code nobody}, where the test runs as root and {@code runuser} exists) cannot read {@code
   * file}; elsewhere the file modes checked by {@link #assertEverythingIsPrivate} stand for it.
   */
  private static void assertAnotherUserCannotRead(Path file) throws Exception {
    if (!"root".equals(System.getProperty("user.name")) || !Files.isExecutable(Path.of("/usr/sbin/runuser"))) {
      System.out.println("not root, or no runuser: another user's read of " + file + " is not tried");
      return;
    }
    Process other = new ProcessBuilder("/usr/sbin/runuser", "-u", "nobody", "--", "cat", file.toString())
        .redirectErrorStream(true).start();
    String said = new String(other.getInputStream().readAllBytes());
    assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(other.exitValue()).as("user nobody reading " + file + ": " + said).isNotZero();
    assertThat(said).contains("Permission denied");
  }

  /** Nothing under the data directory (translogs, segments, Kafka's logs, keys, logs) is open to other users. */
  private static void assertEverythingIsPrivate(Path data) throws IOException {
    try (Stream<Path> paths = Files.walk(data)) {
      List<String> open = paths.filter(path -> !Files.isSymbolicLink(path)).filter(path -> {
        try {
          return Files.getPosixFilePermissions(path).stream().anyMatch(p -> p.name().startsWith("GROUP")
              || p.name().startsWith("OTHERS"));
        } catch (IOException e) {
          return false; // deleted while walking
        }
      }).map(path -> data.relativize(path).toString()).toList();
      assertThat(open).as("paths under the data directory that other users may read").isEmpty();
    }
  }

  /**
   * {@code --duration} counts from "ready": the smallest replayed stack runs that long, then stops every process by
   * itself and exits 0.
   */
  @Test
  void aStackWithADurationStopsByItselfOnceItHasRunThatLong() throws Exception {
    int base = StackPorts.freeBase();
    stack = stacks.start(dir, "local", "--base-port", Integer.toString(base), "--data-dir",
        dir.resolve("data").toString(), "--shard-servers", "1", "--replicas", "0", "--shards", "2",
        "--replay-rate", "100", "--status-interval", "2s", "--duration", "15s");
    stack.awaitOutput("Evenkeel is ready", 180);
    long ready = System.nanoTime();
    List<ProcessHandle> children = stack.process.descendants().toList();
    assertThat(children).as("zookeeper, kafka, a shard server, ingest job, query service, replayer")
        .hasSizeGreaterThanOrEqualTo(6);
    assertThat(stack.process.waitFor(15 + 120, TimeUnit.SECONDS)).as("stops by itself after --duration").isTrue();
    // The launcher starts counting just before it prints "ready"; the test saw that line up to 200 ms later.
    assertThat((System.nanoTime() - ready) / 1e9).as("seconds from ready to exit").isGreaterThanOrEqualTo(14.5);
    assertThat(stack.process.exitValue()).as(String.join("\n", stack.output)).isEqualTo(0);
    assertThat(String.join("\n", stack.output)).contains("--duration 15 s reached").contains("replayer        stopped");
    for (ProcessHandle child : children) {
      assertThat(child.isAlive()).as("process %d after --duration", child.pid()).isFalse();
    }
  }

  /** The documents the launcher's newest status line counts. */
  private long lastStatusDocs() {
    return stack.output.stream().filter(l -> l.contains(" docs ")).map(l -> Long.parseLong(
        l.replaceAll(".* ([\\d,]+) docs .*", "$1").replace(",", ""))).reduce((a, b) -> b).orElse(0L);
  }

  /** The columns a row's line sets, as the shards must return them. */
  private static String summary(String line) {
    String title = line.replaceAll(".*\"title\": \"([^\"]*)\".*", "$1");
    String price = line.replaceAll(".*\"price\": \"([^\"]*)\".*", "$1");
    String status = line.replaceAll(".*\"status\": (\\d+).*", "$1");
    String quantity = line.replaceAll(".*\"quantity\": (\\d+).*", "$1");
    return status + "|" + title + "|" + price + "|" + quantity;
  }

  private static String summary(TransactionLogChange row) {
    return row.getStatus() + "|" + row.getTitle() + "|" + row.getPrice().toPlainString() + "|" + row.getQuantity();
  }

  /** Every row on the shards (read over gRPC), failing on a row found on two shards. */
  private Map<List<Long>, String> shardContents() throws Exception {
    Map<List<Long>, String> rows = new HashMap<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      SearchResponse response = cluster.blockingStub(servers.get(shard / (SHARDS / SERVERS)))
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .search(SearchRequest.newBuilder().setShard(shard)
              .setQuery(Query.newBuilder().setLimit(100_000).setIncludeRows(true).setTrackTotal(true)).build());
      assertThat(response.getTotal()).isLessThan(100_000);
      for (Hit hit : response.getHitsList()) {
        String previous = rows.put(List.of(hit.getTenantId(), hit.getRowId()),
            summary(CHANGES.decode(hit.getRow().toByteArray())));
        assertThat(previous).as("row %d:%d on two shards", hit.getTenantId(), hit.getRowId()).isNull();
      }
    }
    return rows;
  }

  /**
   * With --secure a shard server takes no plaintext call, and a reader's certificate (the query service's) cannot
   * write.
   */
  private void assertShardServersRefuseStrangers(Path tls) {
    SearchRequest search = SearchRequest.newBuilder().setShard(0).setQuery(Query.newBuilder().setLimit(1)).build();
    try (ClusterClient plaintext = new ClusterClient();
        ClusterClient reader = new ClusterClient(new ClientTls(tls.resolve("ca.pem"), tls.resolve("query.pem"),
            tls.resolve("query.key")))) {
      assertThatThrownBy(() -> plaintext.blockingStub(servers.get(0)).withDeadlineAfter(10, TimeUnit.SECONDS)
          .search(search)).isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(reader.blockingStub(servers.get(0)).withDeadlineAfter(10, TimeUnit.SECONDS).search(search)
          .getHitsCount()).isZero();
      assertThatThrownBy(() -> reader.blockingStub(servers.get(0)).withDeadlineAfter(10, TimeUnit.SECONDS)
          .write(WriteRequest.newBuilder().setShard(0).setBatch(ByteString.EMPTY).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    }
  }

  /** A client trusting the local CA, with the launcher's certificate or none. */
  private static HttpClient webUiClient(Path tls, boolean withCertificate) throws Exception {
    char[] password = Files.readString(tls.resolve("stores.password")).strip().toCharArray();
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(tls.resolve("ca.p12"))) {
      trusted.load(in, password);
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    KeyManagerFactory keys = null;
    if (withCertificate) {
      KeyStore own = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(tls.resolve("launcher.p12"))) {
        own.load(in, password);
      }
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(own, password);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).build();
  }

  /** Nothing the stack runs is reachable from another machine: every listening socket binds loopback. */
  private void assertListensOnLoopbackOnly(List<ProcessHandle> children, int base) throws IOException {
    Set<Long> pids = new HashSet<>();
    pids.add(stack.process.pid());
    children.forEach(child -> pids.add(child.pid()));
    List<InetSocketAddress> listening = ListeningSockets.of(pids);
    assertThat(listening).extracting(InetSocketAddress::getPort).as("zookeeper, kafka, flink ui, query service, "
        + "shard server 0").contains(base, base + 1, base + 3, base + 4, base + 10);
    assertThat(listening).allSatisfy(address -> assertThat(address.getAddress().isLoopbackAddress())
        .as("%s of the local stack binds loopback", address).isTrue());
  }

  /**
   * The ingest job's own metrics, read as the Flink UI shows them (a vertex's Metrics tab; its REST API), move while
   * the replayer's rows flow: changes routed, folded and sent (to every shard), acknowledgement delay, the top tenant
   * and its share, rules; a record that does not decode, sent to the topic, is one more dead letter.
   */
  private static void assertJobMetricsMove(FlinkJobMetrics job, String bootstrapServers) throws Exception {
    Map<String, Double> before = awaitMetrics(job, metrics -> FlinkJobMetrics.sum(metrics, "routedChanges") > 0);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new ByteArraySerializer(),
        new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>("transaction-logs", "junk".getBytes(StandardCharsets.UTF_8),
          "not avro".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
    }
    double deadLettersBefore = FlinkJobMetrics.sum(before, "deadLetters");
    // Each vertex's metrics reach the UI on their own schedule: wait for the writer's too, not only the router's.
    double sentByWriterBefore = FlinkJobMetrics.sum(FlinkJobMetrics.matching(before, ".*Writer\\.changesSent"),
        "changesSent");
    Map<String, Double> after = awaitMetrics(job, metrics -> FlinkJobMetrics.sum(metrics, "deadLetters")
        > deadLettersBefore && FlinkJobMetrics.sum(metrics, "routedChanges") > FlinkJobMetrics.sum(before,
        "routedChanges") + 1_000 && FlinkJobMetrics.sum(metrics, "rulesProposed") > 0
        && FlinkJobMetrics.sum(FlinkJobMetrics.matching(metrics, ".*Writer\\.changesSent"), "changesSent")
        > sentByWriterBefore);
    assertThat(FlinkJobMetrics.sum(after, "deadLetters")).as("dead letters").isEqualTo(deadLettersBefore + 1);
    Map<String, Double> sentBefore = FlinkJobMetrics.matching(before, ".*Writer\\.changesSent");
    Map<String, Double> sentAfter = FlinkJobMetrics.matching(after, ".*Writer\\.changesSent");
    assertThat(sentAfter).as("changes the sink sent").hasSize(1);
    assertThat(sentAfter.values().iterator().next()).isGreaterThan(sentBefore.values().iterator().next());
    assertThat(FlinkJobMetrics.matching(after, ".*Writer\\.shard\\.\\d+\\.changesSent")).as("per shard")
        .hasSize(8).allSatisfy((id, sent) -> assertThat(sent).as(id).isPositive());
    assertThat(FlinkJobMetrics.sum(after, "foldedChanges")).as("updates folded into one change of their row")
        .isPositive();
    assertThat(FlinkJobMetrics.sum(after, "lastAckDelayMs")).isPositive();
    assertThat(FlinkJobMetrics.sum(after, "topTenant")).as("the top tenant").isPositive();
    assertThat(FlinkJobMetrics.sum(after, "topTenantShare")).as("its share").isBetween(0.0, 1.0);
    assertThat(FlinkJobMetrics.sum(after, "rulesProposed")).as("rules proposed in the kickoff surge").isPositive()
        .isGreaterThanOrEqualTo(FlinkJobMetrics.sum(after, "rulesCommitted")
            + FlinkJobMetrics.sum(after, "rulesAborted"));
  }

  /**
   * The query service's web console in a real headless Chromium, with the stack's admin key typed in: a query shows
   * rows, the hot-tenant table fills from the job's window summaries while the replayer runs, the cluster shows every
   * shard's primary and in-sync replica, the rule list shows the kickoff's rules, and it links to the Flink UI. The
   * screenshot is kept in target/console/.
   */
  private void assertConsoleShowsTheStack(String url, String key) throws Exception {
    try (ConsolePage page = ConsolePage.open(url, dir.resolve("browser"))) {
      page.useKey(key);
      List<List<String>> count = page.run("SELECT COUNT(*) FROM transaction_logs", false);
      assertThat(Long.parseLong(count.get(0).get(0))).as(page.sqlError()).isPositive();
      page.run("SELECT tenant_id, COUNT(*) AS row_count FROM transaction_logs GROUP BY tenant_id"
          + " ORDER BY row_count DESC LIMIT 5", false);
      assertThat(page.sqlError()).isEmpty();
      page.waitUntil(p -> p.rows("hot-tenants").size() >= 3, Duration.ofSeconds(120), "the hot tenants");
      assertThat(page.rows("hot-tenants")).allSatisfy(row -> {
        assertThat(row.get(2)).endsWith("%");
        assertThat(Integer.parseInt(row.get(3))).isBetween(1, 8);
      });
      page.waitUntil(p -> p.rows("shards").size() == 16 && p.rows("shards").stream()
          .filter(r -> r.get(3).equals("replica (in sync)")).count() == 8, Duration.ofSeconds(120),
          "8 primaries and 8 replicas in sync");
      page.waitUntil(p -> !p.rows("rules").isEmpty(), Duration.ofSeconds(120), "the kickoff's rules");
      assertThat(page.rows("rules")).allSatisfy(row -> assertThat(row.get(1)).isIn("widen", "narrow"));
      assertThat(page.driver().findElement(By.cssSelector("#links a")).getAttribute("href"))
          .startsWith("http://127.0.0.1:");
      page.screenshot(Path.of("target", "console", "local-stack.png"));
    }
  }

  /** The job's metrics once they satisfy {@code until}: Flink's UI fetches them from the task managers every 10 s. */
  private static Map<String, Double> awaitMetrics(FlinkJobMetrics job, Predicate<Map<String, Double>> until)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (true) {
      Map<String, Double> metrics = job.read();
      if (until.test(metrics)) {
        return metrics;
      }
      assertThat(System.nanoTime()).as("the job's metrics within 180 s: %s", metrics).isLessThan(deadline);
      Thread.sleep(1_000);
    }
  }

  /** The Flink web UI shows the job but takes no jar: it has no authentication. */
  private static void assertFlinkUiIsViewOnly(HttpClient http, String ui) throws Exception {
    HttpResponse<String> jobs = http.send(HttpRequest.newBuilder(URI.create(ui + "/jobs/overview")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(jobs.statusCode()).as(jobs.body()).isEqualTo(200);
    assertThat(new ObjectMapper().readTree(jobs.body()).get("jobs").get(0).get("state").asText()).isEqualTo("RUNNING");
    // With submission on, GET /jars lists the uploaded jars (200) and POST /jars/upload takes one.
    HttpRequest upload = HttpRequest.newBuilder(URI.create(ui + "/jars/upload"))
        .header("Content-Type", "multipart/form-data; boundary=x").POST(HttpRequest.BodyPublishers.ofString("--x--"))
        .build();
    for (HttpRequest jars : List.of(HttpRequest.newBuilder(URI.create(ui + "/jars")).build(), upload)) {
      HttpResponse<String> refused = http.send(jars, HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).as(jars.method() + " " + jars.uri() + ": " + refused.body()).isBetween(400, 499);
    }
  }

  /**
   * Read-your-writes for a producer of its own: a plain {@code KafkaProducer} sends rows, then asks {@code GET
   * /searchable} through the client helper with the last offset it got per partition; once that answers 200, SQL
   * finds every row at once. Offsets not written yet give a 202 saying how far behind, a malformed request a 400.
   */
  private void assertProducersReadTheirWrites(HttpClient https, String service, Path data) throws Exception {
    java.util.Properties properties = new java.util.Properties();
    try (var in = Files.newInputStream(data.resolve("kafka-client.properties"))) {
      properties.load(in);
    }
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, StackInfo.read(data).bootstrapServers());
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    SingleObjectCodec<TransactionLogChange> codec = SingleObjectCodec.of(TransactionLogChange.class);
    ProducedOffsets sent = new ProducedOffsets();
    int rows = 40;
    String topic = StackInfo.read(data).topic();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (int i = 0; i < rows; i++) {
        TransactionLogChange change = TransactionLogChange.newBuilder().setOp(io.evenkeel.schemas.ChangeOp.INSERT)
            .setTenantId(77_777).setRowId(i).setCreatedTime(1_700_000_000_000L + i)
            .setModifiedTime(1_700_000_000_000L + i).setVersion(1).setStatus(1).setQuantity(1)
            .setPrice(new java.math.BigDecimal("1.00")).setSellerNick("rw").build();
        byte[] key = ("77777:" + i).getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, key, codec.encode(change)), sent);
      }
      producer.flush();
    }
    String key = "Bearer " + Files.readString(adminKey).strip();
    SearchableClient searchable = SearchableClient.of(https, URI.create(service), Files.readString(adminKey).strip());
    SearchableClient.Answer answer = searchable.await(topic, sent, Duration.ofSeconds(60)).orThrow();
    System.out.println("/searchable after " + rows + " rows of a KafkaProducer: " + answer.body());
    assertThat(sql(data, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 77777").get(0).get(0).asLong())
        .as("rows found as soon as /searchable answered").isEqualTo(rows);
    SearchableClient.Answer behind = searchable.await(null, Map.of(0, 1_000_000_000L), Duration.ofMillis(300));
    assertThat(behind.searchable()).as(behind.body().toString()).isFalse();
    assertThat(behind.body().get("records_behind").asLong()).isGreaterThan(999_000_000L);
    assertThat(behind.body().at("/partitions/0/partition").asInt()).isZero();
    HttpResponse<String> malformed = https.send(HttpRequest.newBuilder(URI.create(service
        + "/searchable?offsets=0:x")).header("Authorization", key).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(malformed.statusCode()).as(malformed.body()).isEqualTo(400);
    assertThat(malformed.body()).contains("PARTITION:OFFSET");
    HttpResponse<String> anonymous = https.send(HttpRequest.newBuilder(URI.create(service
        + "/searchable?offsets=0:1")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).as("without a key").isEqualTo(401);
  }

  /** The rows of {@code query}, with the admin key. */
  private JsonNode sql(Path data, String query) throws Exception {
    return EvenkeelCommand.sqlRows(dir, data, adminKey, query);
  }

  private Run evenkeel(String... args) throws Exception {
    return EvenkeelCommand.run(dir, args);
  }
}
