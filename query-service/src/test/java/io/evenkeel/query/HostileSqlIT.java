package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.QueryGenerator;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * More than 1,000 malformed or hostile SQL requests against a running query service (two shard-server processes):
 * syntax errors cut from valid statements, 100,000-element IN lists, 10,000-deep nesting with and without
 * parentheses, unsupported constructs, statements other than SELECT, injection-shaped text, wrong bodies, a chunked
 * body over the limit. Each is answered with a 4xx naming the problem; the service stays up and answers a valid
 * query correctly after all of them, and its heap stays bounded.
 */
class HostileSqlIT {
  @TempDir Path dir;

  /** Statements a user may send but the service must refuse, each with what it is. */
  private static Map<String, String> hostile(Random random, List<String> valid) {
    Map<String, String> sql = new LinkedHashMap<>();
    for (int i = 0; sql.size() < 700; i++) {
      String statement = valid.get(i % valid.size());
      // Cut where a token is incomplete: a dangling operator or clause keyword never parses.
      int cut = 1 + random.nextInt(statement.length() - 1);
      String truncated = statement.substring(0, cut) + (random.nextBoolean() ? " AND" : " WHERE (");
      sql.put("truncated " + i, truncated);
    }
    String in = IntStream.range(0, 100_000).mapToObj(Integer::toString).collect(Collectors.joining(","));
    sql.put("100,000-element IN list", "SELECT * FROM transaction_logs WHERE row_id IN (" + in + ")");
    sql.put("100,000-element NOT IN list", "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id NOT IN (" + in
        + ")");
    sql.put("10,000 nested parentheses", "SELECT * FROM transaction_logs WHERE " + "(".repeat(10_000) + "status = 1"
        + ")".repeat(10_000));
    sql.put("10,000 nested NOTs", "SELECT * FROM transaction_logs WHERE " + "NOT ".repeat(10_000) + "status = 1");
    sql.put("nesting in a string does not count, the rest does", "SELECT * FROM transaction_logs WHERE title = '"
        + "(".repeat(500) + "' AND " + "(".repeat(200) + "status = 1" + ")".repeat(200));
    // Text a query builds counts against its memory budget: 500 rows of 16 million characters each, a filter that
    // builds a million characters a row, a value past MySQL's 16 MiB.
    sql.put("LPAD to 16 million characters a row", "SELECT LPAD(title, 16000000, 'x') FROM transaction_logs");
    sql.put("a million characters built a row in WHERE", "SELECT COUNT(*) FROM transaction_logs WHERE "
        + "CONCAT(LPAD('', 1000000, 'ab'), title) = 'y'");
    sql.put("REPLACE past 16 MiB", "SELECT REPLACE(LPAD('a', 16000000, 'ab'), 'a', 'aaaa') FROM transaction_logs "
        + "LIMIT 1");
    // A statement's SELECTs (UNION parts, subqueries) are bounded in number; an IN subquery by the values it gives.
    sql.put("a UNION of 1,000 SELECTs", String.join(" UNION ALL ", Collections.nCopies(1_000,
        "SELECT * FROM transaction_logs")));
    sql.put("subqueries 70 deep", "SELECT COUNT(*) FROM transaction_logs WHERE row_id IN (" + "SELECT row_id FROM "
        + "transaction_logs WHERE row_id IN (".repeat(69) + "SELECT row_id FROM transaction_logs" + ")".repeat(70));
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      parts.add("SELECT row_id + " + (i * 1_000) + " FROM transaction_logs");
    }
    sql.put("an IN subquery of 12,500 values", "SELECT COUNT(*) FROM transaction_logs WHERE row_id IN ("
        + String.join(" UNION ALL ", parts) + ")");
    String[] unsupported = {
        "SELECT * FROM transaction_logs a JOIN transaction_logs b ON a.row_id = b.row_id",
        "SELECT * FROM transaction_logs WHERE row_id IN (SELECT row_id, status FROM transaction_logs)",
        "SELECT * FROM transaction_logs WHERE price > (SELECT price FROM transaction_logs)",
        "SELECT * FROM transaction_logs t WHERE price > (SELECT AVG(price) FROM transaction_logs WHERE tenant_id = "
            + "t.tenant_id)",
        "SELECT tenant_id FROM transaction_logs UNION SELECT tenant_id, row_id FROM transaction_logs",
        "SELECT tenant_id FROM transaction_logs INTERSECT SELECT tenant_id FROM transaction_logs",
        "SELECT ROW_NUMBER() OVER (ORDER BY row_id) FROM transaction_logs",
        "SELECT * FROM other_table", "SELECT colour FROM transaction_logs", "SELECT sleep(10)",
        "SELECT benchmark(1000000000, md5('a'))", "SELECT load_file('/etc/passwd')",
        "SELECT * FROM transaction_logs INTO OUTFILE '/tmp/x'", "INSERT INTO transaction_logs VALUES (1)",
        "DELETE FROM transaction_logs", "DROP TABLE transaction_logs", "UPDATE transaction_logs SET status = 1",
        "CREATE TABLE x (a INT)", "SHOW TABLES", "SET @a = 1", "CALL p()", "GRANT ALL ON *.* TO x",
        "SELECT * FROM transaction_logs; DROP TABLE transaction_logs",
        "SELECT * FROM transaction_logs WHERE seller_nick = '' OR 1=1; --'",
        "SELECT * FROM transaction_logs WHERE seller_nick = 'a'' OR ''1''=''1",
        "SELECT * FROM transaction_logs WHERE seller_nick = \"\" /* unterminated",
        "SELECT * FROM transaction_logs LIMIT -1", "SELECT * FROM transaction_logs LIMIT 1 OFFSET -5",
        "SELECT * FROM transaction_logs WHERE row_id = ?", "SELECT", "", "   ", ";", "\u0000",
        "SELECT * FROM transaction_logs WHERE title = '\u0000\uffff'' UNION SELECT 1"};
    for (int i = 0; i < 12; i++) {
      for (String statement : unsupported) {
        sql.put("unsupported " + i + ": " + statement, i == 0 ? statement : statement + " ".repeat(i));
      }
    }
    return sql;
  }

  @Test
  void everyHostileRequestIsA4xxWithAReasonAndTheServiceStaysUp() throws Exception {
    RoutingPolicy policy = RoutingPolicy.hashing(8);
    try (TestCluster cluster = TestCluster.start(dir, policy, 2)) {
      Random random = new Random(22);
      List<TransactionLogChange> rows = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        rows.add(TestRows.random(random, 1 + random.nextInt(20), i, 5));
      }
      cluster.write(rows);
      // A deadline long enough for the 25 SELECTs of the IN subquery below on a machine busy with other tests: what
      // is asserted is the refusal each request gets, not that the deadline cut it short.
      SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(30));
      QueryGenerator generator = new QueryGenerator(random, List.of(1L, 2L, 3L));
      List<String> valid = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        QueryGenerator.Generated query = generator.next();
        if (query.params().isEmpty()) {
          valid.add(query.sql());
        }
      }

      Map<Integer, Integer> byStatus = new TreeMap<>();
      int requests = 0;
      for (Map.Entry<String, String> entry : hostile(random, valid).entrySet()) {
        SqlClient.Answer answer = client.sql(entry.getValue());
        requests++;
        byStatus.merge(answer.status(), 1, Integer::sum);
        assertThat(answer.status()).as("%s: %s", entry.getKey(), answer.body()).isBetween(400, 499);
        assertThat(answer.body().path("error").asText()).as(entry.getKey()).isNotBlank();
      }
      // Bodies that are not what /sql takes.
      for (String body : List.of("not json", "{\"sql\": 42}", "[]", "{\"params\": [1]}", "{\"sql\": \"SELECT 1\"",
          "{\"cursor\": 42}", "{\"cursor\": \"e30\"}", "{\"sql\": \"SELECT 1\", \"cursor\": \"e30\"}",
          "{\"sql\": \"SELECT * FROM transaction_logs WHERE row_id = ?\", \"params\": [{\"a\": 1}]}")) {
        for (int i = 0; i < 50; i++) {
          SqlClient.Answer answer = client.postRaw("/sql", body + " ".repeat(i));
          requests++;
          byStatus.merge(answer.status(), 1, Integer::sum);
          assertThat(answer.status()).as(body).isBetween(400, 499);
        }
      }
      // Text the functions build is charged to the query's memory budget, and the refusal says so.
      SqlClient.Answer built = client.sql("SELECT LPAD(title, 16000000, 'x') FROM transaction_logs");
      requests++;
      assertThat(built.status()).as(built.body().toString()).isEqualTo(400);
      assertThat(built.body().path("error").asText()).contains("text built by LPAD");
      // A chunked body (no length announced) over the 1 MiB limit: refused while it is read.
      HttpResponse<String> chunked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + client.port() + "/sql"))
          .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(
              "{\"sql\": \"SELECT 1 " + " ".repeat(3 << 20) + "\"}"))).build(), HttpResponse.BodyHandlers.ofString());
      requests++;
      assertThat(chunked.statusCode()).isEqualTo(413);
      System.out.printf("hostile SQL: %d requests, answers by status %s; heap used %,d MB%n", requests, byStatus,
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20);
      assertThat(requests).isGreaterThanOrEqualTo(1_000);

      // Still up, and right; an OFFSET beyond the matching rows answers no rows, as MySQL does.
      assertThat(client.get("/health").status()).isEqualTo(200);
      assertThat(client.sql("SELECT COUNT(*) FROM transaction_logs").body().at("/rows/0/0").asLong())
          .isEqualTo(rows.size());
      SqlClient.Answer deep = client.sql("SELECT row_id FROM transaction_logs WHERE tenant_id = 3 "
          + "ORDER BY created_time DESC LIMIT 10 OFFSET 100000");
      assertThat(deep.status()).as(deep.body().toString()).isEqualTo(200);
      assertThat(deep.body().get("rows")).isEmpty();
      SqlClient.Answer lastRows = client.sql("SELECT row_id FROM transaction_logs ORDER BY row_id LIMIT 3 "
          + "OFFSET 199998");
      assertThat(lastRows.status()).isEqualTo(200);
      assertThat(lastRows.body().get("rows")).isEmpty();
    }
  }
}
