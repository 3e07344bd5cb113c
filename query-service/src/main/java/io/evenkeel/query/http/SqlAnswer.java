package io.evenkeel.query.http;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.evenkeel.query.result.QueryResult;
import io.evenkeel.query.result.ShardFailure;
import java.util.List;

/**
 * The body of a {@code POST /sql} answer, as Jackson writes it (in snake_case): {@code partial} and the shards'
 * {@code failures} only for a partial answer, {@code possibly_stale} and {@code stale_reason} only when the routing
 * rules may be out of date, {@code cursor} only when more rows may follow the page.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record SqlAnswer(List<String> columns, List<List<Object>> rows, long tookMs, Shards shards, Boolean partial,
    Boolean possiblyStale, String staleReason, String cursor, @JsonIgnore AutoCloseable held) implements AutoCloseable {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Shards(int total, int succeeded, int failed, List<ShardFailure> failures) {}

  /** The answer to {@code result}, whose memory {@code held} holds until it is written (then closed). */
  static SqlAnswer of(QueryResult result, AutoCloseable held) {
    return new SqlAnswer(result.columns(), result.rows(), result.tookMs(),
        new Shards(result.shardsTotal(), result.shardsSucceeded(), result.failures().size(),
            result.partial() ? result.failures() : null),
        result.partial() ? Boolean.TRUE : null, result.staleRules() != null ? Boolean.TRUE : null,
        result.staleRules(), result.cursor(), held);
  }

  @Override
  public void close() throws Exception {
    held.close();
  }
}
