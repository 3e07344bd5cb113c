package io.evenkeel.launcher.load;

import io.evenkeel.launcher.sql.SqlClient;
import io.evenkeel.launcher.sql.SqlResult;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Consumer;

/**
 * {@code load --wait}: remembers what each loaded row must look like (present with its {@code modified_time}, or
 * absent after a DELETE) and asks the query service, tenant by tenant, until every row does.
 */
final class SearchableWait implements Consumer<TransactionLogChange> {
  /** Row ids per query, to keep each statement small. */
  private static final int IDS_PER_QUERY = 500;
  private static final long ABSENT = Long.MIN_VALUE;

  /** tenant → row → the modified_time the row must show, or {@link #ABSENT}. */
  private final Map<Long, Map<Long, Long>> pending = new HashMap<>();
  private long rows;

  /** Called for every change sent; the last change of a row decides what it must look like. */
  @Override
  public void accept(TransactionLogChange change) {
    Long previous = pending.computeIfAbsent(change.getTenantId(), t -> new HashMap<>())
        .put(change.getRowId(), change.getOp() == ChangeOp.DELETE ? ABSENT : change.getModifiedTime());
    if (previous == null) {
      rows++;
    }
  }

  /** Waits until every row looks as loaded; throws if {@code timeout} passes first, saying how many still differ. */
  void await(SqlClient sql, Duration timeout, PrintStream out) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextProgress = 0;
    while (true) {
      for (Iterator<Map.Entry<Long, Map<Long, Long>>> it = pending.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, Map<Long, Long>> tenant = it.next();
        confirm(sql, tenant.getKey(), tenant.getValue());
        if (tenant.getValue().isEmpty()) {
          it.remove();
        }
      }
      long left = remaining();
      if (left == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(left + " of " + rows + " loaded rows are not searchable as loaded after "
            + timeout.toSeconds() + " s");
      }
      if (System.nanoTime() > nextProgress) {
        out.printf("waiting: %,d of %,d rows searchable%n", rows - left, rows);
        out.flush();
        nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      }
      Thread.sleep(500);
    }
  }

  long rows() {
    return rows;
  }

  private long remaining() {
    return pending.values().stream().mapToLong(Map::size).sum();
  }

  /** Removes the rows of one tenant that the service already shows as loaded. */
  private void confirm(SqlClient sql, long tenant, Map<Long, Long> expected) throws IOException, InterruptedException {
    List<Long> ids = new ArrayList<>(expected.keySet());
    for (int from = 0; from < ids.size(); from += IDS_PER_QUERY) {
      List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + IDS_PER_QUERY));
      StringJoiner in = new StringJoiner(", ", "(", ")");
      chunk.forEach(id -> in.add(Long.toString(id)));
      SqlResult result;
      try {
        result = sql.query("SELECT row_id, modified_time FROM transaction_logs WHERE tenant_id = " + tenant
            + " AND row_id IN " + in + " LIMIT " + chunk.size());
      } catch (SqlClient.SqlError e) {
        throw new IOException("the query service refused the check: " + e.getMessage(), e);
      }
      Map<Long, Long> found = new HashMap<>();
      for (List<com.fasterxml.jackson.databind.JsonNode> row : result.rows()) {
        found.put(row.get(0).asLong(), row.get(1).asLong());
      }
      for (Long id : chunk) {
        long want = expected.get(id);
        Long seen = found.get(id);
        if (want == ABSENT ? seen == null : seen != null && seen == want) {
          expected.remove(id);
        }
      }
    }
  }
}
