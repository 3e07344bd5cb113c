package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.QueryGenerator;
import io.evenkeel.query.testing.ReferenceDatabase;
import io.evenkeel.query.testing.ResultRows;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TransactionLogChange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same rows in two shard server processes (8 shards, dynamic routing with tenants at L = 2, 4 and 8; the
 * attribute key "color" indexed as a field, "size" and "brand" not) and in a real MariaDB; generated queries over every supported construct must give identical results through the HTTP API
 * (in order when the ORDER BY is total, as multisets otherwise). Numbers compare by value (MariaDB answers SUM of
 * integers as a DECIMAL, the service as an integer).
 */
class DifferentialIT {
  private static final long SEED = 20261123L;
  private static final int QUERIES = 600;
  private static final RuleList RULES = RuleList.of(8, List.of(
      Rule.grow(TestRows.BASE_TIME, 2, 3),
      Rule.grow(TestRows.BASE_TIME + 10 * TestRows.DAY, 4, 7),
      Rule.grow(TestRows.BASE_TIME + 20 * TestRows.DAY, 8, 11)));
  /** What each query must show at least this often, so that every supported construct is exercised. */
  private static final List<String> CONSTRUCTS = List.of("SELECT *", " AND ", " OR ", "NOT (", "!=", " < ", " <= ",
      " > ", " >= ", " BETWEEN ", " IN (", " NOT IN (", " IS NULL", " IS NOT NULL", " LIKE ", " NOT LIKE ",
      "MATCH(title)", "ORDER BY", " DESC", " LIMIT ", " OFFSET ", "COUNT(*)", "SUM(", "AVG(", "MIN(", "MAX(",
      "COUNT(DISTINCT", "GROUP BY", "HAVING", "SELECT DISTINCT", "DATE_FORMAT(", "IFNULL(", "attr(", " * ", " / ",
      "= ?");

  @TempDir static Path dir;
  private static TestCluster cluster;
  private static ReferenceDatabase reference;
  private static final List<Long> tenants = LongStream.rangeClosed(1, 20).boxed().toList();

  @BeforeAll
  static void load() throws Exception {
    reference = ReferenceDatabase.create(dir.resolve("mariadb"));
    cluster = TestCluster.start(dir, RoutingPolicy.dynamic(RULES), 2, "--hot-attributes", "color");
    Random random = new Random(SEED);
    Map<List<Long>, TransactionLogChange> live = new LinkedHashMap<>();
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int i = 0; i < 2_400; i++) {
      // Tenants 3, 7 and 11 are large; the others share the rest.
      long tenant = random.nextInt(3) == 0 ? List.of(3L, 7L, 11L).get(random.nextInt(3)) : 1 + random.nextInt(20);
      TransactionLogChange row = TestRows.random(random, tenant, i, 30);
      live.put(List.of(row.getTenantId(), row.getRowId()), row);
      changes.add(row);
    }
    List<List<Long>> keys = new ArrayList<>(live.keySet());
    for (int i = 0; i < 150; i++) {
      List<Long> key = keys.get(random.nextInt(keys.size()));
      TransactionLogChange old = live.get(key);
      if (old != null) {
        TransactionLogChange update = TestRows.statusUpdate(old, random.nextInt(4) == 0 ? null : random.nextInt(5));
        changes.add(update);
        live.put(key, TransactionLogChange.newBuilder(update).setSetColumns(null).build());
      }
    }
    for (int i = 0; i < 80; i++) {
      TransactionLogChange old = live.remove(keys.get(random.nextInt(keys.size())));
      if (old != null) {
        changes.add(TestRows.delete(old));
      }
    }
    cluster.write(changes);
    reference.insert(live.values());
  }

  @AfterAll
  static void close() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (reference != null) {
      reference.close();
    }
  }

  @Test
  void generatedQueriesGiveTheReferenceDatabasesResults() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults().withHotAttributes(Set.of("color")),
        Duration.ofSeconds(20));
    QueryGenerator generator = new QueryGenerator(new Random(SEED + 1), tenants);
    Map<String, Integer> seen = new LinkedHashMap<>();
    CONSTRUCTS.forEach(c -> seen.put(c, 0));
    List<String> mismatches = new ArrayList<>();
    int nonEmpty = 0;
    for (int i = 0; i < QUERIES; i++) {
      QueryGenerator.Generated query = generator.next();
      CONSTRUCTS.forEach(c -> seen.merge(c, query.sql().contains(c) ? 1 : 0, Integer::sum));
      List<List<String>> expected = ResultRows.of(reference.query(query.reference()));
      SqlClient.Answer answer = client.post(query.sql(), query.params(), false);
      if (answer.status() != 200) {
        mismatches.add(query.sql() + " " + query.params() + "\n  status " + answer.status() + ": " + answer.body());
        continue;
      }
      List<List<String>> actual = ResultRows.of(answer.body().get("rows"));
      if (!query.ordered()) {
        expected.sort(ResultRows.ORDER);
        actual.sort(ResultRows.ORDER);
      }
      if (!expected.equals(actual)) {
        mismatches.add(query.sql() + " " + query.params() + "\n  reference: " + query.reference()
            + "\n  expected " + expected.size() + " rows: " + ResultRows.head(expected) + "\n  actual " + actual.size()
            + " rows:   " + ResultRows.head(actual));
      }
      nonEmpty += expected.isEmpty() ? 0 : 1;
    }
    assertThat(mismatches).as("%d of %d queries differ", mismatches.size(), QUERIES).isEmpty();
    assertThat(nonEmpty).as("queries with a non-empty answer").isGreaterThan(QUERIES / 2);
    assertThat(seen).as("construct counts").allSatisfy((construct, count) ->
        assertThat(count).as(construct).isGreaterThanOrEqualTo(5));
  }
}
