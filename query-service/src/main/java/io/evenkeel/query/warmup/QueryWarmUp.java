package io.evenkeel.query.warmup;

import io.evenkeel.query.auth.Access;
import io.evenkeel.query.http.SqlService;
import java.math.BigDecimal;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Runs the statements users send most, over a time window no row has, so that the first real query after a start
 * does not pay for loading the SQL parser and planner and for connecting to every shard server: after a restart a
 * first dashboard query took 0.8 s of the query service's CPU, most of it initialising Calcite's parser. Each
 * statement is parsed, planned, routed and sent to its shards, which answer at once from their points trees.
 */
public final class QueryWarmUp {
  private static final int ROUNDS = 10;
  private static final String WINDOW = " FROM transaction_logs WHERE created_time >= ? AND created_time < ?";
  private static final List<Object> NO_ROW = List.of(0L, 1L);
  private static final List<Statement> STATEMENTS = List.of(
      new Statement("SELECT *" + WINDOW + " AND tenant_id = ? AND price BETWEEN ? AND ? AND seller_nick = ?"
          + " ORDER BY created_time DESC LIMIT 100",
          List.of(0L, 1L, 0L, new BigDecimal("1.00"), new BigDecimal("2.00"), "warm-up")),
      new Statement("SELECT tenant_id, COUNT(*) AS n" + WINDOW + " GROUP BY tenant_id ORDER BY n DESC, tenant_id"
          + " LIMIT 10", NO_ROW),
      new Statement("SELECT status, DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*)" + WINDOW
          + " GROUP BY status, day", NO_ROW),
      new Statement("SELECT tenant_id, SUM(price) AS revenue" + WINDOW + " GROUP BY tenant_id"
          + " ORDER BY revenue DESC, tenant_id LIMIT 20", NO_ROW));

  private record Statement(String sql, List<Object> params) {}

  private QueryWarmUp() {}

  /** What a warm-up did: how long it took, and the rows its statements found (0 when no row has the window). */
  public record Done(long millis, long rowsFound) {}

  /** Runs each statement a few times. Throws what a statement threw. */
  public static Done run(SqlService service) {
    long started = System.nanoTime();
    long rows = 0;
    for (int round = 0; round < ROUNDS; round++) {
      for (Statement statement : STATEMENTS) {
        rows += service.execute(statement.sql(), statement.params(), ZoneOffset.UTC, true, Access.ALL).rows().size();
      }
    }
    return new Done((System.nanoTime() - started) / 1_000_000, rows);
  }
}
