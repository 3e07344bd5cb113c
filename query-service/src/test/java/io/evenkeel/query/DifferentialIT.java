package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.ExpressionGenerator;
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
import io.evenkeel.query.frequency.HotAttributePublisher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same rows in two shard server processes (8 shards, dynamic routing with tenants at L = 2, 4 and 8) and in a real
 * MariaDB; generated queries over every supported construct must give identical results through the HTTP API (in
 * order when the ORDER BY is total, as multisets otherwise). Numbers compare by value (MariaDB answers SUM of integers
 * as a DECIMAL, the service as an integer).
 *
 * <p>Frequency-based indexing changes mid-run: the servers start indexing the attribute key "color" only; half the
 * queries run, then queries on "size" make it hot, the query service publishes the new list through ZooKeeper, the
 * servers apply it while they run, and more rows are written and updated, so that "size" is indexed in some rows and
 * only stored in others, and the second half of the queries runs against that mix while the servers index the older
 * rows again in the background; once they all are, filters on "size" are compared once more.
 */
class DifferentialIT {
  private static final long SEED = 20261123L;
  private static final int QUERIES = 600;
  /** The service publishes the list every second from the last two seconds' queries: a key used 5 times is hot. */
  private static final String SIZE_M = "SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'";
  private static final String SIZE_M_REFERENCE = "SELECT COUNT(*) FROM transaction_logs WHERE attr__size = 'M'";
  private static final HotAttributePublisher.Settings HOT = new HotAttributePublisher.Settings(3, 5,
      Duration.ofSeconds(1), 2);
  private static final RuleList RULES = RuleList.of(8, List.of(
      Rule.grow(TestRows.BASE_TIME, 2, 3),
      Rule.grow(TestRows.BASE_TIME + 10 * TestRows.DAY, 4, 7),
      Rule.grow(TestRows.BASE_TIME + 20 * TestRows.DAY, 8, 11)));
  /** What each query must show at least this often, so that every supported construct is exercised. */
  private static final List<String> CONSTRUCTS = List.of("SELECT *", " AND ", " OR ", "NOT (", "!=", " < ", " <= ",
      " > ", " >= ", " BETWEEN ", " IN (", " NOT IN (", " IS NULL", " IS NOT NULL", " LIKE ", " NOT LIKE ",
      "MATCH(title)", "ORDER BY", " DESC", " LIMIT ", " OFFSET ", "COUNT(*)", "SUM(", "AVG(", "MIN(", "MAX(",
      "COUNT(DISTINCT", "GROUP BY", "HAVING", "SELECT DISTINCT", "DATE_FORMAT(", "IFNULL(", "attr(", " * ", " / ",
      "= ?", "CASE WHEN", " % ", "DATE(FROM_UNIXTIME(", " UNION ", " UNION ALL ", "IN (SELECT", "NOT IN (SELECT",
      "EXISTS (SELECT", "(SELECT AVG(", ") UNION", " DIV ", "POW(", " INTERVAL ");

  @TempDir static Path dir;
  private static TestCluster cluster;
  private static ReferenceDatabase reference;
  private static final List<Long> tenants = LongStream.rangeClosed(1, 20).boxed().toList();
  private static final Random random = new Random(SEED);
  private static final Map<List<Long>, TransactionLogChange> live = new LinkedHashMap<>();

  @BeforeAll
  static void load() throws Exception {
    reference = ReferenceDatabase.create(dir.resolve("mariadb"));
    // Re-indexing slow enough that the second half's queries meet rows indexed for "size" and rows not yet.
    cluster = TestCluster.startWithZooKeeper(dir, RoutingPolicy.dynamic(RULES), 2, "--hot-attributes", "color",
        "--reindex-rate", "100");
    writeAndMirror(0, 2_400, 150, 80);
  }

  /** Inserts rows {@code first..first+inserts-1}, updates and deletes some live rows, and mirrors the end state. */
  private static void writeAndMirror(int first, int inserts, int updates, int deletes) throws Exception {
    Set<List<Long>> touched = new HashSet<>();
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int i = first; i < first + inserts; i++) {
      // Tenants 3, 7 and 11 are large; the others share the rest.
      long tenant = random.nextInt(3) == 0 ? List.of(3L, 7L, 11L).get(random.nextInt(3)) : 1 + random.nextInt(20);
      TransactionLogChange row = TestRows.random(random, tenant, i, 30);
      live.put(List.of(row.getTenantId(), row.getRowId()), row);
      touched.add(List.of(row.getTenantId(), row.getRowId()));
      changes.add(row);
    }
    List<List<Long>> keys = new ArrayList<>(live.keySet());
    for (int i = 0; i < updates; i++) {
      List<Long> key = keys.get(random.nextInt(keys.size()));
      TransactionLogChange old = live.get(key);
      if (old != null) {
        TransactionLogChange update = TestRows.statusUpdate(old, random.nextInt(4) == 0 ? null : random.nextInt(5));
        changes.add(update);
        live.put(key, TransactionLogChange.newBuilder(update).setSetColumns(null).build());
        touched.add(key);
      }
    }
    for (int i = 0; i < deletes; i++) {
      List<Long> key = keys.get(random.nextInt(keys.size()));
      TransactionLogChange old = live.remove(key);
      if (old != null) {
        changes.add(TestRows.delete(old));
        touched.add(key);
      }
    }
    cluster.write(changes);
    reference.delete(touched);
    reference.insert(touched.stream().filter(live::containsKey).map(live::get).toList());
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

  /**
   * Queries on "size" until the service has published it and both servers index it, then more rows: new ones, and
   * updates that rewrite older rows under the new list.
   */
  private static void makeSizeHot(SqlClient client, List<String> mismatches) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!(cluster.hotAttributesOf(0).contains("size") && cluster.hotAttributesOf(1).contains("size"))) {
      assertThat(System.nanoTime()).as("servers indexing size within 60 s").isLessThan(deadline);
      compare(client, SIZE_M, SIZE_M_REFERENCE, mismatches);
      Thread.sleep(100);
    }
    writeAndMirror(2_400, 1_200, 300, 40);
    compare(client, SIZE_M, SIZE_M_REFERENCE, mismatches);
  }

  private static void compare(SqlClient client, String sql, String reference, List<String> mismatches)
      throws Exception {
    List<List<String>> expected = ResultRows.of(DifferentialIT.reference.query(reference));
    SqlClient.Answer answer = client.sql(sql);
    List<List<String>> actual = answer.status() == 200 ? ResultRows.of(answer.body().get("rows")) : List.of();
    if (!expected.equals(actual)) {
      mismatches.add(sql + ": expected " + expected + ", got " + answer.status() + " " + answer.body());
    }
  }

  @Test
  void generatedQueriesGiveTheReferenceDatabasesResults() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults().withHotAttributes(Set.of("color")),
        Duration.ofSeconds(20), HOT);
    QueryGenerator generator = new QueryGenerator(new Random(SEED + 1), tenants);
    Map<String, Integer> seen = new LinkedHashMap<>();
    CONSTRUCTS.forEach(c -> seen.put(c, 0));
    List<String> mismatches = new ArrayList<>();
    int nonEmpty = 0;
    for (int i = 0; i < QUERIES; i++) {
      if (i == QUERIES / 2) {
        makeSizeHot(client, mismatches);
      }
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

    // Queries on "size" meanwhile keep it hot: the publisher drops a key its queries no longer use.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (cluster.unindexedRows() > 0 || !cluster.hotAttributesOf(0).contains("size")
        || !cluster.hotAttributesOf(1).contains("size")) {
      assertThat(System.nanoTime()).as("size hot on both servers and every row indexed for it within 120 s").isLessThan(deadline);
      compare(client, SIZE_M, SIZE_M_REFERENCE, mismatches);
      Thread.sleep(100);
    }
    for (String filter : List.of("= 'M'", "IN ('M', 'S')", "LIKE 'M%'", "IS NULL", "IS NOT NULL")) {
      compare(client, "SELECT COUNT(*) FROM transaction_logs WHERE attr('size') " + filter,
          "SELECT COUNT(*) FROM transaction_logs WHERE attr__size " + filter, mismatches);
    }
    assertThat(mismatches).as("after every row was indexed again for size").isEmpty();
    assertThat(client.sql("EXPLAIN SELECT COUNT(*) FROM transaction_logs WHERE attr('size') = 'M'").body()
        .toString()).as("filters on the new hot key go to the index").contains("index: attr('size') = 'M'");
    assertThat(nonEmpty).as("queries with a non-empty answer").isGreaterThan(QUERIES / 2);
    assertThat(seen).as("construct counts").allSatisfy((construct, count) ->
        assertThat(count).as(construct).isGreaterThanOrEqualTo(5));
  }

  /**
   * Compares a statement's answer with the reference database's: in order when it has a LIMIT (its ORDER BY is total
   * then), as sets of rows otherwise. A difference or a refusal is added to {@code mismatches}; true when the
   * reference answer has rows.
   */
  private static boolean compareWithReference(SqlClient client, String sql, List<String> mismatches)
      throws Exception {
    List<List<String>> expected = ResultRows.of(reference.query(sql));
    SqlClient.Answer answer = client.sql(sql);
    if (answer.status() != 200) {
      mismatches.add(sql + "\n  status " + answer.status() + ": " + answer.body().path("error").asText());
      return !expected.isEmpty();
    }
    List<List<String>> actual = ResultRows.of(answer.body().get("rows"));
    if (!sql.toUpperCase(java.util.Locale.ROOT).contains(" LIMIT ")) {
      expected.sort(ResultRows.ORDER);
      actual.sort(ResultRows.ORDER);
    }
    if (!expected.equals(actual)) {
      mismatches.add(sql + "\n  expected " + expected.size() + " rows: " + ResultRows.head(expected)
          + "\n  actual " + actual.size() + " rows:   " + ResultRows.head(actual));
    }
    return !expected.isEmpty();
  }

  /**
   * The queries a MySQL user writes first (mysql-user-queries.sql: filters, aggregates, CASE, casts, string and date
   * functions, UNIONs, subqueries), each answered as MariaDB answers it: no refusal, no difference.
   */
  @Test
  void everydayMySqlQueriesAnswerAsMariaDbDoes() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(20));
    List<String> queries = new ArrayList<>();
    try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(
        DifferentialIT.class.getResourceAsStream("/mysql-user-queries.sql"), java.nio.charset.StandardCharsets.UTF_8))) {
      lines.lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("--")).forEach(queries::add);
    }
    List<String> mismatches = new ArrayList<>();
    int nonEmpty = 0;
    for (String sql : queries) {
      nonEmpty += compareWithReference(client, sql, mismatches) ? 1 : 0;
    }
    System.out.printf("everyday MySQL queries: %d, %d answered as MariaDB did (%d with rows)%n", queries.size(),
        queries.size() - mismatches.size(), nonEmpty);
    assertThat(mismatches).as("%d of %d queries", mismatches.size(), queries.size()).isEmpty();
    assertThat(queries).hasSizeGreaterThanOrEqualTo(150);
    assertThat(nonEmpty).isGreaterThan(queries.size() * 3 / 4);
  }

  /**
   * Expressions generated up to three calls deep over every kind of column, a NULL possible in every argument
   * position: in the select list (evaluated by the service), in WHERE (tested on the shards' rows), and as GROUP BY
   * keys and aggregate arguments (computed on the shards), each answered as MariaDB answers it.
   */
  @Test
  void nestedExpressionsAnswerAsMariaDbDoes() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(20));
    ExpressionGenerator expressions = new ExpressionGenerator(new Random(SEED + 2));
    List<String> mismatches = new ArrayList<>();
    int queries = 750;
    int nonEmpty = 0;
    for (int i = 0; i < queries; i++) {
      ExpressionGenerator.Kind kind = expressions.valueKind();
      String sql = switch (i % 3) {
        // Every other one ordered by its expression first (sorted on the shards), ascending or descending.
        case 0 -> "SELECT row_id, " + expressions.next(kind, 3) + ", " + expressions.next(ExpressionGenerator.Kind.TRUTH, 2)
            + " FROM transaction_logs WHERE tenant_id IN (3, 7) ORDER BY "
            + (i % 2 == 0 ? "" : i % 4 == 1 ? "2, " : "2 DESC, ") + "tenant_id, row_id LIMIT 60";
        case 1 -> "SELECT COUNT(*), SUM(" + expressions.next(ExpressionGenerator.Kind.DECIMAL, 2)
            + ") FROM transaction_logs WHERE " + expressions.next(ExpressionGenerator.Kind.TRUTH, 3);
        default -> "SELECT " + expressions.next(kind, 3) + " AS k, COUNT(*), SUM("
            + expressions.next(ExpressionGenerator.Kind.INTEGER, 2) + "), AVG("
            + expressions.next(ExpressionGenerator.Kind.DECIMAL, 1) + "), MIN(" + expressions.next(expressions.valueKind(), 2)
            + "), COUNT(DISTINCT " + expressions.next(expressions.valueKind(), 1) + ") FROM transaction_logs"
            + (i % 2 == 0 ? " WHERE tenant_id IN (1, 3, 7, 11)" : "") + " GROUP BY k";
      };
      nonEmpty += compareWithReference(client, sql, mismatches) ? 1 : 0;
    }
    System.out.printf("nested expressions: %d queries, %d answered as MariaDB did; functions generated: %s%n",
        queries, queries - mismatches.size(), expressions.functions());
    assertThat(mismatches).as("%d of %d queries", mismatches.size(), queries).isEmpty();
    assertThat(nonEmpty).isGreaterThan(queries / 2);
    assertThat(expressions.functions()).as("every function generated").hasSizeGreaterThan(50)
        .allSatisfy((function, count) -> assertThat(count).as(function).isGreaterThanOrEqualTo(3));
  }

  @Test
  void dateFunctionsAgreeInEverySessionTimeZone() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(20));
    List<String> mismatches = new ArrayList<>();
    for (String zone : List.of("+08:00", "-05:00", "+05:45", "+00:00")) {
      for (String sql : List.of(
          "SELECT HOUR(FROM_UNIXTIME(created_time / 1000)) AS h, COUNT(*) FROM transaction_logs GROUP BY h",
          "SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS d, COUNT(*) FROM transaction_logs GROUP BY d",
          "SELECT row_id, DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m-%d %H:%i') FROM transaction_logs "
              + "WHERE tenant_id = 3",
          "SELECT COUNT(*) FROM transaction_logs WHERE FROM_UNIXTIME(created_time / 1000) < '2023-11-20 06:00'",
          "SELECT UNIX_TIMESTAMP('2023-11-20 06:00:00'), UNIX_TIMESTAMP(DATE(FROM_UNIXTIME(created_time / 1000))) "
              + "FROM transaction_logs WHERE tenant_id = 5")) {
        List<List<String>> expected = ResultRows.of(reference.queryInTimeZone(sql, zone));
        SqlClient.Answer answer = client.inTimeZone(sql, zone);
        List<List<String>> actual = answer.status() == 200 ? ResultRows.of(answer.body().get("rows")) : List.of();
        expected.sort(ResultRows.ORDER);
        actual.sort(ResultRows.ORDER);
        if (expected.isEmpty() || !expected.equals(actual)) {
          mismatches.add(zone + " " + sql + ": expected " + ResultRows.head(expected) + ", got " + answer.status()
              + " " + (answer.status() == 200 ? ResultRows.head(actual) : answer.body()));
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(client.inTimeZone("SELECT 1 FROM transaction_logs LIMIT 1", "Moon/Base").body().path("error").asText())
        .contains("unknown time zone 'Moon/Base'");
  }

  /**
   * A page that may have rows after it answers with a cursor; following the cursors to the last page (which has none)
   * gives every row the statement selects once, in MariaDB's order of the ORDER BY keys, then tenant_id and row_id,
   * whatever the ORDER BY (none; descending; nullable columns, whose NULLs sort first ascending and last descending),
   * the WHERE clause (one tenant, several, all, a parameter) or the first page's OFFSET.
   */
  @Test
  void pagesFollowedByTheirCursorsGiveEveryRowOnceInTheReferenceOrder() throws Exception {
    SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(20));
    String columns = "tenant_id, row_id, status, price, seller_nick, created_time";
    List<String> mismatches = new ArrayList<>();
    int pagesRead = 0;
    for (String where : List.of("", " WHERE tenant_id = 3", " WHERE tenant_id IN (1, 2, 7, 11)",
        " WHERE tenant_id = ? AND status IS NOT NULL")) {
      for (String orderBy : List.of("", " ORDER BY created_time DESC", " ORDER BY status, price DESC",
          " ORDER BY seller_nick DESC, status")) {
        for (String page : List.of(" LIMIT 97", " LIMIT 40 OFFSET 5")) {
          String sql = "SELECT " + columns + " FROM transaction_logs" + where + orderBy + page;
          List<Object> params = where.contains("?") ? List.of(7L) : List.of();
          String reference = "SELECT " + columns + " FROM transaction_logs" + where.replace("?", "7")
              + (orderBy.isEmpty() ? " ORDER BY " : orderBy + ", ") + "tenant_id, row_id";
          List<List<String>> expected = ResultRows.of(DifferentialIT.reference.query(reference));
          expected = expected.subList(page.contains("OFFSET") ? 5 : 0, expected.size());
          List<List<String>> paged = new ArrayList<>();
          SqlClient.Answer answer = client.post(sql, params, false);
          int pages = 0;
          while (true) {
            pages++;
            if (answer.status() != 200) {
              mismatches.add(sql + ": page " + pages + " answered " + answer.status() + " " + answer.body());
              break;
            }
            paged.addAll(ResultRows.of(answer.body().get("rows")));
            if (!answer.body().hasNonNull("cursor")) {
              break;
            }
            answer = client.next(answer.body().get("cursor").asText());
          }
          pagesRead += pages;
          int size = page.contains("97") ? 97 : 40;
          if (!paged.equals(expected)) {
            mismatches.add(sql + ": expected " + expected.size() + " rows, paged " + paged.size() + " in " + pages
                + " pages: " + ResultRows.head(paged));
          } else if (pages != expected.size() / size + 1) {
            mismatches.add(sql + ": " + pages + " pages for " + expected.size() + " rows of " + size);
          }
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(pagesRead).as("pages read").isGreaterThan(200);

    // A token that is not one of the service's, or that names values of another type, is a 400; nothing runs.
    assertThat(client.next("not-a-cursor").status()).isEqualTo(400);
    String forged = java.util.Base64.getUrlEncoder().encodeToString(("{\"sql\": \"SELECT * FROM transaction_logs "
        + "ORDER BY status LIMIT 5\", \"params\": [], \"after\": [\"x\", 1, 2]}").getBytes());
    SqlClient.Answer refused = client.next(forged);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.body().get("error").asText()).contains("does not fit column status");
    // A query that cannot continue by its keys (groups) answers no cursor.
    assertThat(client.sql("SELECT status, COUNT(*) FROM transaction_logs GROUP BY status LIMIT 1").body()
        .has("cursor")).isFalse();
  }
}
