package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.query.warmup.QueryWarmUp;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TransactionLogChange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service over HTTP in front of two real shard server processes (8 shards): routing seen in the response, the
 * two-phase fetch, exact aggregates, and bad requests answered with the reason.
 */
class QueryServiceIT {
  private static final long HOT_TENANT = 7;
  /** Tenant 7 spreads over 4 shards for rows created from here on. */
  private static final long RULE_TIME = TestRows.BASE_TIME + 10 * TestRows.DAY;
  private static final RuleList RULES = RuleList.of(8, List.of(Rule.grow(RULE_TIME, 4, HOT_TENANT)));

  @TempDir static Path dir;
  private static TestCluster cluster;
  private static SqlClient client;
  private static final List<TransactionLogChange> rows = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start(dir, RoutingPolicy.dynamic(RULES), 2);
    Random random = new Random(7);
    for (int i = 0; i < 400; i++) {
      long tenant = i < 200 ? HOT_TENANT : 1 + random.nextInt(20);
      rows.add(TestRows.random(random, tenant, i, 20));
    }
    cluster.write(rows);
    client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static long count(java.util.function.Predicate<TransactionLogChange> filter) {
    return rows.stream().filter(filter).count();
  }

  @Test
  void warmUpRunsTheCommonestStatementsOverEveryShardAndFindsNoRow() {
    QueryWarmUp.Done done = QueryWarmUp.run(cluster.startBareService());
    assertThat(done.rowsFound()).as("its window holds no row, so the shards answer at once").isZero();
  }

  @Test
  void tenantQueryVisitsOnlyItsShardsAndTimeBeforeTheRuleVisitsOne() {
    SqlClient.Answer all = client.sql("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = ?", HOT_TENANT);
    assertThat(all.status()).isEqualTo(200);
    assertThat(all.body().at("/shards/total").asInt()).isEqualTo(4);
    assertThat(all.body().at("/shards/succeeded").asInt()).isEqualTo(4);
    assertThat(all.body().at("/rows/0/0").asLong()).isEqualTo(count(r -> r.getTenantId() == HOT_TENANT));

    SqlClient.Answer before = client.sql("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 7 "
        + "AND created_time < ?", RULE_TIME);
    assertThat(before.body().at("/shards/total").asInt()).isEqualTo(1);
    long expectedBefore = count(r -> r.getTenantId() == HOT_TENANT && r.getCreatedTime() < RULE_TIME);
    assertThat(expectedBefore).isPositive();
    assertThat(before.body().at("/rows/0/0").asLong()).isEqualTo(expectedBefore);

    SqlClient.Answer everyone = client.sql("SELECT COUNT(*) FROM transaction_logs WHERE seller_nick = 'ann'");
    assertThat(everyone.body().at("/shards/total").asInt()).isEqualTo(8);
    assertThat(everyone.body().at("/rows/0/0").asLong()).isEqualTo(count(r -> "ann".equals(r.getSellerNick())));
  }

  @Test
  void twoPhaseFetchReturnsTheGlobalTopRowsInOrder() {
    SqlClient.Answer answer = client.sql("SELECT tenant_id, row_id, price FROM transaction_logs "
        + "WHERE price IS NOT NULL ORDER BY price DESC, row_id LIMIT 5 OFFSET 2");
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body().get("columns")).extracting(Object::toString)
        .containsExactly("\"tenant_id\"", "\"row_id\"", "\"price\"");
    List<TransactionLogChange> expected = rows.stream().filter(r -> r.getPrice() != null)
        .sorted((a, b) -> {
          int sign = b.getPrice().compareTo(a.getPrice());
          return sign != 0 ? sign : Long.compare(a.getRowId(), b.getRowId());
        }).skip(2).limit(5).toList();
    List<String> got = new ArrayList<>();
    answer.body().get("rows").forEach(row -> got.add(row.get(1).asLong() + "@" + row.get(2).decimalValue()));
    assertThat(got).containsExactlyElementsOf(expected.stream().map(r -> r.getRowId() + "@" + r.getPrice()).toList());
  }

  @Test
  void aggregatesMergeExactlyAcrossShards() {
    SqlClient.Answer answer = client.sql("SELECT COUNT(*), SUM(price), AVG(quantity), COUNT(DISTINCT buyer_id) "
        + "FROM transaction_logs");
    java.math.BigDecimal sum = rows.stream().map(TransactionLogChange::getPrice).filter(java.util.Objects::nonNull)
        .reduce(java.math.BigDecimal.ZERO, java.math.BigDecimal::add);
    List<Integer> quantities = rows.stream().map(TransactionLogChange::getQuantity)
        .filter(java.util.Objects::nonNull).toList();
    java.math.BigDecimal avg = java.math.BigDecimal.valueOf(quantities.stream().mapToLong(Integer::longValue).sum())
        .divide(java.math.BigDecimal.valueOf(quantities.size()), 4, java.math.RoundingMode.HALF_UP);
    long buyers = rows.stream().map(TransactionLogChange::getBuyerId).filter(java.util.Objects::nonNull)
        .distinct().count();
    assertThat(answer.body().at("/rows/0/0").asLong()).isEqualTo(rows.size());
    assertThat(answer.body().at("/rows/0/1").decimalValue()).isEqualByComparingTo(sum);
    assertThat(answer.body().at("/rows/0/2").decimalValue()).isEqualTo(avg);
    assertThat(answer.body().at("/rows/0/3").asLong()).isEqualTo(buyers);
    assertThat(answer.body().at("/shards/total").asInt()).isEqualTo(8);
  }

  @Test
  void badSqlGets400NamingTheProblem() {
    SqlClient.Answer syntax = client.sql("SELECT FROM transaction_logs");
    assertThat(syntax.status()).isEqualTo(400);
    assertThat(syntax.body().get("error").asText())
        .isEqualTo("SQL syntax error: Incorrect syntax near the keyword 'FROM' at line 1, column 8.");

    SqlClient.Answer column = client.sql("SELECT colour FROM transaction_logs");
    assertThat(column.status()).isEqualTo(400);
    assertThat(column.body().get("error").asText()).startsWith("unknown column 'colour' of transaction_logs");

    SqlClient.Answer join = client.sql("SELECT a.row_id FROM transaction_logs a, transaction_logs b");
    assertThat(join.status()).isEqualTo(400);
    assertThat(join.body().get("error").asText()).contains("JOIN").contains("is not supported");

    SqlClient.Answer type = client.sql("SELECT row_id FROM transaction_logs WHERE seller_nick = 5");
    assertThat(type.body().get("error").asText())
        .isEqualTo("seller_nick is a string (KEYWORD); compare it with a string, not number 5");

    SqlClient.Answer notJson = client.postRaw("/sql", "sql=SELECT 1");
    assertThat(notJson.status()).isEqualTo(400);
    assertThat(notJson.body().get("error").asText()).startsWith("the body must be JSON");

    assertThat(client.get("/nowhere").status()).isEqualTo(404);
    assertThat(client.get("/sql").status()).isEqualTo(405);
  }

  /**
   * A service that pushes a key the shards have never indexed (its list and theirs differ, as they may while a new
   * list travels) still gets the exact count: the shards scan the stored rows their index does not cover.
   */
  @Test
  void anAttributeKeyTheShardsDoNotIndexIsAnsweredByScanningTheirStoredRows() throws Exception {
    SqlClient ahead = cluster.startService(OptimizerSettings.defaults().withHotAttributes(Set.of("size")),
        Duration.ofSeconds(10));
    long expected = count(r -> r.getAttributes() != null && r.getAttributes().matches("(.*;)?size:M(;.*)?"));
    assertThat(expected).isPositive();
    SqlClient.Answer pushed = ahead.sql("SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'");
    assertThat(pushed.status()).isEqualTo(200);
    assertThat(ahead.sql("EXPLAIN SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'").body().toString())
        .contains("index: attr('size') = 'M'");
    assertThat(pushed.body().at("/rows/0/0").asLong()).isEqualTo(expected);
    assertThat(client.sql("SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'").body()
        .at("/rows/0/0").asLong()).isEqualTo(expected);
  }

  @Test
  void healthRefreshExplainAndAttributeFrequency() {
    assertThat(client.get("/health").body().get("status").asText()).isEqualTo("ok");
    SqlClient.Answer refreshed = client.postRaw("/refresh", "");
    assertThat(refreshed.status()).isEqualTo(200);
    assertThat(refreshed.body().get("shards").asInt()).isEqualTo(8);
    assertThat(client.get("/refresh").status()).isEqualTo(405);
    SqlClient.Answer explain = client.sql("EXPLAIN SELECT * FROM transaction_logs WHERE tenant_id = 7 "
        + "AND created_time >= 0 AND attr('size') = 'M'");
    assertThat(explain.body().get("columns").get(0).asText()).isEqualTo("plan");
    assertThat(explain.body().at("/rows/1/0").asText()).isEqualTo("access:");
    client.sql("SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'");
    client.sql("SELECT attr('color') FROM transaction_logs WHERE attr('size') = 'S' LIMIT 1");
    SqlClient.Answer attributes = client.get("/attributes?top=1");
    assertThat(attributes.body().at("/queries_by_key/size").asLong()).isGreaterThanOrEqualTo(3);
    assertThat(attributes.body().get("hot").get(0).asText()).isEqualTo("size");
  }
}
