package io.evenkeel.query.result;

import java.util.List;

/**
 * The answer to one statement: output columns and rows (values are Long, BigDecimal, String or null), how long it
 * took, and how many of the shards it visited answered. {@code failures} is non-empty only for a partial answer the
 * caller allowed.
 *
 * @param shardSearchMicros the shards' own search time, summed over the shards (the index work of the plan,
 *     without transport and merging)
 * @param staleRules why the routing rules this answer used may be out of date (null when they are current)
 * @param cursor the token that asks for the next page (null when no rows can follow, or the query cannot be paged)
 */
public record QueryResult(List<String> columns, List<List<Object>> rows, long tookMs, int shardsTotal,
    List<ShardFailure> failures, long shardSearchMicros, String staleRules, String cursor) {
  public QueryResult {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
    failures = List.copyOf(failures);
  }

  public int shardsSucceeded() {
    return shardsTotal - failures.size();
  }

  public boolean partial() {
    return !failures.isEmpty();
  }
}
