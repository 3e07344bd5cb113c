package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.query.http.SqlHttpServer;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries that would make a shard server or the service hold more memory than their budgets, on two shard-server
 * processes with a small read budget ({@code --request-read-memory 2m}) and a service that returns at most 1,000
 * rows: each is refused with a 400 naming the budget and the way out, at once (not at the deadline), also 16 at a
 * time; LIMIT and OFFSET at any unsigned 64-bit value answer as MySQL does; afterwards both servers run (same
 * processes) and answer exactly, also for rows written afterwards.
 */
class QueryBudgetsIT {
  private static final int ROWS = 40_000;
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void queriesOverABudgetAre400sNamingItAtOnceAndEveryProcessLives() throws Exception {
    RoutingPolicy policy = RoutingPolicy.hashing(8);
    try (TestCluster cluster = TestCluster.start(dir, policy, 2, "--request-read-memory", "2m")) {
      Random random = new Random(40);
      List<TransactionLogChange> rows = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        rows.add(TestRows.random(random, 1 + random.nextInt(20), i, 5));
      }
      cluster.write(rows);
      List<Long> pids = List.of(cluster.server(0).process().pid(), cluster.server(1).process().pid());
      SqlClient client = cluster.startService(options -> options.deadline(DEADLINE).maxResultRows(1_000)
          .memory(new MemoryBudget(64L << 20, 16L << 20, QueryService.MEMORY_FLAG,
              QueryService.REQUEST_MEMORY_FLAG)));
      // Warm: the first query opens the channels.
      assertThat(client.sql("SELECT COUNT(*) FROM transaction_logs").body().at("/rows/0/0").asLong())
          .isEqualTo(ROWS);

      // Every row with its stored columns: 20,000 rows per server call, over its 2 MiB, refused on the estimate of
      // their size before a row is read.
      assertRefused(client, "SELECT * FROM transaction_logs", "--request-read-memory", "add a LIMIT");
      assertRefused(client, "SELECT * FROM transaction_logs", "--request-read-memory", "(estimated)");
      // One group per row: the groups are reserved on the shards as they are made.
      assertRefused(client, "SELECT row_id, COUNT(*) FROM transaction_logs GROUP BY row_id",
          "--request-read-memory", "groups");
      assertRefused(client, "SELECT tenant_id, COUNT(DISTINCT row_id) FROM transaction_logs GROUP BY tenant_id",
          "--request-read-memory", "distinct values");
      // A tenant's 2,000 rows fit every budget, but not the answer's 1,000 rows.
      assertRefused(client, "SELECT row_id FROM transaction_logs WHERE tenant_id = 3", "--max-result-rows",
          "cursor");

      // 16 at once: each gets its 400, or a 429 when the 8 slots of queries over several tenants are taken; none
      // waits for the deadline.
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        String sql = "SELECT row_id, COUNT(*) FROM transaction_logs GROUP BY row_id";
        List<CompletableFuture<long[]>> sixteen = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          sixteen.add(CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            SqlClient.Answer answer = client.sql(sql);
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            String error = answer.body().path("error").asText();
            if (answer.status() == 429) {
              assertThat(error).contains("--max-concurrent-queries-per-tenant");
            } else {
              assertThat(answer.status()).as(error).isEqualTo(400);
              assertThat(error).contains("--request-read-memory");
            }
            return new long[] {answer.status(), tookMs};
          }, pool));
        }
        List<long[]> answers = sixteen.stream().map(CompletableFuture::join).toList();
        long slowest = answers.stream().mapToLong(a -> a[1]).max().orElseThrow();
        System.out.printf("16 over-budget GROUP BY row_id at once: %d answered 400, %d answered 429; the slowest in"
            + " %d ms%n", answers.stream().filter(a -> a[0] == 400).count(),
            answers.stream().filter(a -> a[0] == 429).count(), slowest);
        assertThat(slowest).isLessThan(DEADLINE.toMillis() / 2);
        // A refusal for load is paced: a client that asks again at once cannot make the service answer faster.
        assertThat(answers.stream().filter(a -> a[0] == 429).mapToLong(a -> a[1]))
            .allSatisfy(ms -> assertThat(ms).isGreaterThanOrEqualTo(SqlHttpServer.REFUSAL_PACE_MS));
      } finally {
        pool.shutdownNow();
      }

      // LIMIT and OFFSET at any unsigned 64-bit value: MySQL's answers.
      TreeSet<Long> statuses = new TreeSet<>();
      rows.forEach(row -> statuses.add(row.getStatus() == null ? -1L : row.getStatus()));
      JsonNode pageAfterFirst = answer(client, "SELECT status, COUNT(*) FROM transaction_logs GROUP BY status"
          + " ORDER BY status LIMIT 9223372036854775807 OFFSET 1");
      assertThat(pageAfterFirst.get("rows")).hasSize(statuses.size() - 1);
      long ofTenant3 = rows.stream().filter(row -> row.getTenantId() == 3).count();
      assertThat(answer(client, "SELECT row_id FROM transaction_logs WHERE tenant_id = 3 ORDER BY row_id"
          + " LIMIT 18446744073709551615 OFFSET " + (ofTenant3 - 5)).get("rows")).hasSize(5);
      assertThat(answer(client, "SELECT row_id FROM transaction_logs WHERE tenant_id = 3 ORDER BY row_id LIMIT 5"
          + " OFFSET 18446744073709551615").get("rows")).isEmpty();
      SqlClient.Answer tooLarge = client.sql("SELECT row_id FROM transaction_logs LIMIT 18446744073709551616");
      assertThat(tooLarge.status()).isEqualTo(400);
      assertThat(tooLarge.body().get("error").asText()).contains("18446744073709551615");

      // The same processes, and exact answers, also for rows written afterwards.
      assertThat(List.of(cluster.server(0).process().pid(), cluster.server(1).process().pid())).isEqualTo(pids);
      assertThat(cluster.server(0).process().isAlive() && cluster.server(1).process().isAlive()).isTrue();
      List<TransactionLogChange> later = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        later.add(TestRows.random(random, 21, ROWS + i, 5));
      }
      cluster.write(later);
      assertThat(answer(client, "SELECT COUNT(*) FROM transaction_logs").at("/rows/0/0").asLong())
          .isEqualTo(ROWS + later.size());
      assertThat(answer(client, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 21").at("/rows/0/0")
          .asLong()).isEqualTo(later.size());
      assertThat(answer(client, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 3").at("/rows/0/0")
          .asLong()).isEqualTo(ofTenant3);
    }
  }

  /** Asserts {@code sql} gets a 400 whose message names {@code budget} and {@code detail}; returns how long it took. */
  private static long assertRefused(SqlClient client, String sql, String budget, String detail) {
    long started = System.nanoTime();
    SqlClient.Answer answer = client.sql(sql);
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    assertThat(answer.status()).as("%s: %s", sql, answer.body()).isEqualTo(400);
    assertThat(answer.body().get("error").asText()).as(sql).contains(budget).contains(detail);
    // Refused while it was being built (or on its estimate, before): far from the deadline a query that waited would
    // reach.
    assertThat(tookMs).as("%s refused in ms", sql).isLessThan(2_000);
    return tookMs;
  }

  private static JsonNode answer(SqlClient client, String sql) {
    SqlClient.Answer answer = client.sql(sql);
    assertThat(answer.status()).as("%s: %s", sql, answer.body()).isEqualTo(200);
    return answer.body();
  }
}
