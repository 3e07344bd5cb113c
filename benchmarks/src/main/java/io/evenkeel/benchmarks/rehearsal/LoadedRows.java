package io.evenkeel.benchmarks.rehearsal;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.BusyException;
import io.evenkeel.benchmarks.peer.SqlEndpoint;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * What SQL finds of a {@link SteadyLoad}'s rows (row ids from its first on) once they have arrived, against what Kafka
 * acknowledged: every acknowledged row must be found exactly once.
 *
 * @param acknowledged rows Kafka acknowledged to the load's producer
 * @param failedSends rows whose send failed (Kafka may hold them or not)
 * @param found the rows {@code COUNT(*)} finds
 * @param distinct the distinct row ids among them
 */
public record LoadedRows(long acknowledged, long failedSends, long found, long distinct) {
  /** Acknowledged rows not found (a lower bound when sends failed: those found may be among the failed). */
  public long lost() {
    return Math.max(0, acknowledged - distinct);
  }

  /** Rows found more than once. */
  public long duplicated() {
    return found - distinct;
  }

  /**
   * Asks {@code sql} until it finds every acknowledged row of the stopped {@code load}, or its count has not moved
   * for {@code stalled}.
   */
  public static LoadedRows await(SqlEndpoint sql, SteadyLoad load, Duration stalled)
      throws IOException, InterruptedException {
    long lastMove = System.nanoTime();
    long lastDistinct = -1;
    while (true) {
      JsonNode counts;
      try {
        counts = sql.rows("SELECT COUNT(*), COUNT(DISTINCT row_id) FROM transaction_logs WHERE row_id >= ?",
            List.of(load.firstRowId())).get(0);
      } catch (BusyException shed) {
        Thread.sleep(200); // other queries over all tenants run: ask again
        continue;
      }
      LoadedRows rows = new LoadedRows(load.acknowledged(), load.failed(), counts.get(0).asLong(),
          counts.get(1).asLong());
      if (rows.distinct() >= rows.acknowledged() || System.nanoTime() - lastMove > stalled.toNanos()) {
        return rows;
      }
      if (rows.distinct() != lastDistinct) {
        lastDistinct = rows.distinct();
        lastMove = System.nanoTime();
      }
      Thread.sleep(500);
    }
  }
}
