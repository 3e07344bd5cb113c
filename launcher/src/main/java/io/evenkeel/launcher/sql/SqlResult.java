package io.evenkeel.launcher.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The query service's answer to {@code POST /sql}: {@code {"columns": [...], "rows": [[...], ...], "took_ms": n,
 * "shards": {"total": n, "failed": n}}} (ARCHITECTURE.md section 6).
 */
public record SqlResult(List<String> columns, List<List<JsonNode>> rows, long tookMs, int shardsTotal,
    int shardsFailed, String json) {
  static SqlResult fromJson(JsonNode body, String json) {
    List<String> columns = new ArrayList<>();
    body.path("columns").forEach(c -> columns.add(c.asText()));
    List<List<JsonNode>> rows = new ArrayList<>();
    for (JsonNode row : body.path("rows")) {
      List<JsonNode> values = new ArrayList<>();
      row.forEach(values::add);
      rows.add(values);
    }
    JsonNode shards = body.path("shards");
    return new SqlResult(List.copyOf(columns), List.copyOf(rows), body.path("took_ms").asLong(),
        shards.path("total").asInt(), shards.path("failed").asInt(), json);
  }
}
