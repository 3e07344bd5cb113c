package io.evenkeel.launcher.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Renders a result as an aligned text table, MySQL-client style: numbers right-aligned, NULL shown as NULL. */
public final class ResultTable {
  private ResultTable() {}

  public static String render(SqlResult result) {
    List<String> columns = result.columns();
    int[] width = new int[columns.size()];
    boolean[] numeric = new boolean[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      width[c] = columns.get(c).length();
      numeric[c] = true;
    }
    for (List<JsonNode> row : result.rows()) {
      for (int c = 0; c < columns.size(); c++) {
        JsonNode value = c < row.size() ? row.get(c) : null;
        width[c] = Math.max(width[c], text(value).length());
        // A column is right-aligned when all its non-NULL values are numbers (decimals may come as strings).
        numeric[c] &= value == null || value.isNull() || value.isNumber()
            || (value.isTextual() && value.asText().matches("-?\\d+(\\.\\d+)?"));
      }
    }
    StringBuilder out = new StringBuilder();
    String rule = rule(width);
    out.append(rule);
    appendRow(out, columns, width, new boolean[columns.size()]);
    out.append(rule);
    for (List<JsonNode> row : result.rows()) {
      appendRow(out, row.stream().map(ResultTable::text).toList(), width, numeric);
    }
    if (!result.rows().isEmpty()) {
      out.append(rule);
    }
    out.append(String.format("%,d %s in %d ms, %d %s%s%n", result.rows().size(),
        result.rows().size() == 1 ? "row" : "rows", result.tookMs(), result.shardsTotal(),
        result.shardsTotal() == 1 ? "shard" : "shards",
        result.shardsFailed() == 0 ? "" : " (" + result.shardsFailed() + " failed: the result is partial)"));
    return out.toString();
  }

  private static String text(JsonNode value) {
    if (value == null || value.isNull()) {
      return "NULL";
    }
    return value.isTextual() ? value.asText() : value.toString();
  }

  private static String rule(int[] width) {
    StringBuilder rule = new StringBuilder("+");
    for (int w : width) {
      rule.append("-".repeat(w + 2)).append('+');
    }
    return rule.append('\n').toString();
  }

  private static void appendRow(StringBuilder out, List<String> cells, int[] width, boolean[] right) {
    out.append('|');
    for (int c = 0; c < width.length; c++) {
      String cell = c < cells.size() ? cells.get(c) : "";
      String pad = " ".repeat(width[c] - cell.length());
      out.append(' ').append(right[c] ? pad + cell : cell + pad).append(" |");
    }
    out.append('\n');
  }
}
