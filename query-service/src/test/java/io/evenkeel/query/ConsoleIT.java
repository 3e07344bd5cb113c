package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.console.ClusterOverview;
import io.evenkeel.query.console.Console;
import io.evenkeel.query.console.HotTenantFeed;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.ConsolePage;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console in a real headless Chromium, served by a query service over real shard servers and reading window
 * summaries from a real Kafka broker: an operator types a key and a query and sees the rows, the plan, the cluster's
 * shards with their documents, the rule list with the pending rule, and the hot-tenant table following the newest
 * window (past a record that is none); a tenant key gets the SQL box and a refusal for the views; values are shown as
 * text, never as markup; a dead shard server's shards show why they have no figures.
 */
class ConsoleIT {
  private static final String TOPIC = "tenant-window-summaries";
  private static final String MARKUP = "<img src=x onerror=\"window.injected=1\">";

  @TempDir Path dir;

  @Test
  void anOperatorSeesRowsPlansShardsRulesAndHotTenants() throws Exception {
    long now = System.currentTimeMillis();
    RuleList rules = RuleList.of(8, List.of(
        Rule.grow(TestRows.BASE_TIME, 4, 7),
        Rule.grow(TestRows.BASE_TIME + TestRows.DAY, 8, 9),
        Rule.coolDown(now + 3_600_000, 1, 7)));
    RoutingPolicy policy = RoutingPolicy.dynamic(rules);
    String[] admin = ApiKeys.newKey("ops", "admin");
    String[] shop = ApiKeys.newKey("shop7", "tenant 7");
    Path keyFile = dir.resolve("keys");
    Files.write(keyFile, List.of(admin[1], shop[1]));
    try (KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"));
        TestCluster cluster = TestCluster.start(dir.resolve("shards"), policy, 2)) {
      Random random = new Random(11);
      List<TransactionLogChange> rows = new ArrayList<>();
      Map<Long, Integer> perTenant = new TreeMap<>();
      for (int i = 0; i < 900; i++) {
        long tenant = List.of(7L, 9L, 9L, 11L).get(i % 4);
        rows.add(TestRows.random(random, tenant, i, 5));
        perTenant.merge(tenant, 1, Integer::sum);
      }
      rows.add(TransactionLogChange.newBuilder(TestRows.random(random, 11, 5_000, 5)).setSellerNick(MARKUP).build());
      perTenant.merge(11L, 1, Integer::sum);
      cluster.write(rows);
      kafka.ensureTopic(TOPIC, 1);
      Properties properties = new Properties();
      properties.put("bootstrap.servers", kafka.bootstrapServers());
      Console console = new Console(ClusterOverview.of(cluster.placement(), null),
          HotTenantFeed.start(TOPIC, properties), () -> policy, () -> rules, "http://127.0.0.1:1/flink");
      SqlClient service = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(10),
          ApiKeys.open(keyFile), console);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
              kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer());
          ConsolePage page = ConsolePage.open("http://127.0.0.1:" + service.port() + "/console", dir)) {
        // Without a key, every view says what it needs.
        page.waitUntil(p -> p.text("cluster-status").startsWith("401"), Duration.ofSeconds(60), "the 401");
        page.useKey(admin[0]);

        List<List<String>> answer = page.run("SELECT tenant_id, COUNT(*) FROM transaction_logs GROUP BY tenant_id"
            + " ORDER BY tenant_id", false);
        List<List<String>> expected = new ArrayList<>();
        perTenant.forEach((tenant, count) -> expected.add(List.of(tenant.toString(), count.toString())));
        assertThat(answer).isEqualTo(expected);
        assertThat(page.sqlMeta()).startsWith("3 rows in ").endsWith("8 of 8 shards");

        List<List<String>> marked = page.run("SELECT seller_nick FROM transaction_logs WHERE tenant_id = 11"
            + " AND row_id = 5000", false);
        assertThat(marked).containsExactly(List.of(MARKUP));
        assertThat(page.driver().findElements(org.openqa.selenium.By.cssSelector("#sql-result img"))).isEmpty();

        page.run("SELECT FROM WHERE", false);
        assertThat(page.sqlError()).startsWith("400: ");

        List<List<String>> plan = page.run("SELECT row_id FROM transaction_logs WHERE tenant_id = 9 AND status = 1",
            true);
        assertThat(page.sqlColumns()).containsExactly("plan");
        assertThat(String.join("\n", plan.stream().map(r -> r.get(0)).toList())).contains("route: ")
            .contains("tenant 9");

        // The cluster: every shard with its primary and its documents, adding up to the rows written.
        // Each copy's figures come from a Stats call with a deadline of its own: wait until all 8 answered.
        page.waitUntil(p -> p.rows("shards").size() == 8 && p.rows("shards").stream()
            .allMatch(r -> r.size() > 4 && r.get(4).matches("[\\d,]+")), Duration.ofSeconds(60), "8 shards' figures");
        assertThat(page.rows("servers")).hasSize(2);
        long docs = page.rows("shards").stream().mapToLong(r -> Long.parseLong(r.get(4).replace(",", ""))).sum();
        assertThat(docs).isEqualTo(rows.size());
        assertThat(page.rows("shards")).allSatisfy(r -> assertThat(r.get(3)).isEqualTo("primary"));
        assertThat(page.driver().findElement(org.openqa.selenium.By.cssSelector("#links a"))
            .getAttribute("href")).isEqualTo("http://127.0.0.1:1/flink");

        // The rules, newest first: the cool-down is still pending.
        page.waitUntil(p -> p.rows("rules").size() == 3, Duration.ofSeconds(60), "3 rules");
        assertThat(page.rows("rules").get(0).get(0)).endsWith("(pending)");
        assertThat(page.rows("rules").stream().map(r -> r.get(1) + " " + r.get(2) + " " + r.get(3)).toList())
            .containsExactly("narrow 1 7", "widen 8 9", "widen 4 7");

        // Hot tenants: the table follows the newest window summary on the topic, each tenant with its L now.
        page.waitUntil(p -> p.text("hot-status").contains("no window summary yet"), Duration.ofSeconds(60),
            "that no window came yet");
        // The windows end at the clock's time now (not the test's start): the console calls a window stale by its age.
        long sent = System.currentTimeMillis();
        long windowEnd = sent - sent % 10_000;
        // A window long past: shown, with a warning that no newer one came.
        send(producer, summary(windowEnd - 600_000, 100, new TenantShare(5L, 100L, 1.0)));
        page.waitUntil(p -> p.text("hot-status").contains("s ago: is the ingest job running"), Duration.ofSeconds(60),
            "that the newest window is old");
        assertThat(page.rows("hot-tenants")).containsExactly(List.of("5", "100", "100.0%", "1"));
        send(producer, summary(windowEnd - 10_000, 900, new TenantShare(9L, 450L, 0.5),
            new TenantShare(7L, 225L, 0.25), new TenantShare(11L, 225L, 0.25)));
        page.waitUntil(p -> p.rows("hot-tenants").size() == 3, Duration.ofSeconds(60), "the first window");
        assertThat(page.rows("hot-tenants")).containsExactly(
            List.of("9", "450", "50.0%", "8"), List.of("7", "225", "25.0%", "4"), List.of("11", "225", "25.0%", "1"));
        assertThat(page.text("hot-status")).isEmpty();
        // A record that is no window summary is skipped; the next summary still shows.
        producer.send(new ProducerRecord<>(TOPIC, "not a summary".getBytes(StandardCharsets.UTF_8))).get();
        send(producer, summary(windowEnd, 2_000, new TenantShare(11L, 1_500L, 0.75), new TenantShare(9L, 500L, 0.25)));
        page.waitUntil(p -> p.rows("hot-tenants").size() == 2, Duration.ofSeconds(60), "the next window");
        assertThat(page.rows("hot-tenants").get(0)).containsExactly("11", "1,500", "75.0%", "1");
        assertThat(page.text("hot-window")).contains("2,000 writes");
        page.screenshot(Path.of("target", "console", "console-it.png"));

        // A tenant key: its own rows through the SQL box, and no view of the cluster.
        page.useKey(shop[0]);
        assertThat(page.run("SELECT COUNT(*) FROM transaction_logs", false))
            .containsExactly(List.of(perTenant.get(7L).toString()));
        page.run("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 9", false);
        assertThat(page.sqlError()).startsWith("403: ");
        page.waitUntil(p -> p.text("cluster-status").startsWith("403"), Duration.ofSeconds(60), "the 403");
        assertThat(page.driver().executeScript("return window.injected === undefined")).isEqualTo(true);

        // A dead shard server: its shards show why, at once, and the other server's still show their figures.
        page.useKey(admin[0]);
        cluster.server(1).kill();
        // (A call in flight as it died may say UNKNOWN once; the next refresh finds nothing listening.)
        page.waitUntil(p -> p.rows("shards").stream().filter(r -> r.size() == 5 && r.get(4).startsWith("UNAVAILABLE"))
            .count() == 4 && p.rows("shards").stream().filter(r -> r.size() == 10).count() == 4,
            Duration.ofSeconds(60), "the dead server's 4 shards as UNAVAILABLE, the live server's 4 with figures");
      }
    }
  }

  private static WindowSummary summary(long windowStart, long total, TenantShare... top) {
    return WindowSummary.newBuilder().setWindowStart(windowStart).setWindowEnd(windowStart + 10_000)
        .setTotalWrites(total).setActiveTenants(top.length).setTopTenants(List.of(top)).setShardLoads(List.of())
        .build();
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, WindowSummary summary) throws Exception {
    producer.send(new ProducerRecord<>(TOPIC, SingleObjectCodec.of(WindowSummary.class).encode(summary))).get();
  }
}
