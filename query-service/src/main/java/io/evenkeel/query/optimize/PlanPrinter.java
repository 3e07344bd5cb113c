package io.evenkeel.query.optimize;

import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.query.parse.OrderItem;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.SortField;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** EXPLAIN text: the normalized WHERE, the chosen access paths as a tree, the route and the execution. */
public final class PlanPrinter {
  private PlanPrinter() {}

  /** One line per fact; {@code route} describes the {@code shards} shards the query visits. */
  public static List<String> lines(QueryPlan plan, String route, int shards) {
    List<String> lines = new ArrayList<>();
    lines.add("where: " + plan.where());
    lines.add("access:");
    access(plan.access(), "  ", lines, plan.conditionsOnShards());
    lines.add("route: " + route);
    lines.add("execution: " + execution(plan, shards));
    return lines;
  }

  private static void access(AccessPlan plan, String indent, List<String> lines, boolean conditionsOnShards) {
    if (plan instanceof AccessPlan.Conjunction conjunction) {
      lines.add(indent + "intersect");
      conjunction.parts().forEach(part -> access(part, indent + "  ", lines, conditionsOnShards));
    } else if (plan instanceof AccessPlan.Union union) {
      lines.add(indent + "union");
      union.branches().forEach(branch -> access(branch, indent + "  ", lines, conditionsOnShards));
    } else if (plan instanceof AccessPlan.CompositeRange range) {
      lines.add(indent + "composite index " + range.index() + " (" + String.join(", ", range.columns()) + "): "
          + tuple(range.lower()) + " .. " + tuple(range.upper()) + " for "
          + range.covers().stream().map(Object::toString).collect(Collectors.joining(" AND ")));
    } else if (plan instanceof AccessPlan.IndexLookup lookup) {
      lines.add(indent + "index: " + lookup.leaf());
    } else if (plan instanceof AccessPlan.DocValuesScan scan) {
      lines.add(indent + "doc-values scan: " + scan.leaf());
    } else if (plan instanceof AccessPlan.ServiceScan scan) {
      lines.add(indent + (FilterCompiler.onShards(scan, conditionsOnShards) ? "row condition on the shards' candidate rows: "
          : "service scan of candidate rows: ") + scan.condition());
    } else {
      lines.add(indent + (((AccessPlan.Constant) plan).all() ? "all rows" : "no rows"));
    }
  }

  private static String tuple(List<Long> values) {
    return values.stream().map(v -> v == Long.MIN_VALUE ? "min" : v == Long.MAX_VALUE ? "max" : v.toString())
        .collect(Collectors.joining(", ", "[", "]"));
  }

  private static String execution(QueryPlan plan, int shards) {
    SelectStatement statement = plan.statement();
    String page = statement.limit() == null ? "" : ", LIMIT " + statement.limit()
        + (statement.offset() > 0 ? " OFFSET " + statement.offset() : "");
    String order = statement.orderBy().isEmpty() ? "" : ", ORDER BY "
        + statement.orderBy().stream().map(OrderItem::toString).collect(Collectors.joining(", "));
    return switch (plan.mode()) {
      case TWO_PHASE -> (plan.hitColumns().isEmpty() && plan.rowsInHits(shards) ? "one phase: top "
          + plan.hitsPerShard() + " rows of the one shard"
          : plan.hitColumns().isEmpty() ? "two-phase: top " + plan.hitsPerShard() + " ids per shard"
          : "one phase: top " + plan.hitsPerShard() + " hits per shard") + " by " + sort(plan.sort())
          + (plan.orderedByComposite() ? " (in composite index order: read from the "
          + (plan.sort().get(0).getDescending() ? "highest" : "lowest") + " " + plan.sort().get(0).getField()
          + " in steps, stop at the page)" : "")
          + (plan.rowsInHits(shards) ? page
          : plan.hitColumns().isEmpty() ? ", merge" + page + ", then fetch the rows"
          : " with " + String.join(", ", plan.hitColumns()) + " from doc values, merge" + page
          + " (covered: no fetch)");
      case ROWS -> "fetch candidate rows" + (plan.serviceFilter() ? ", filter in the service" : "")
          + order + page;
      case AGGREGATE_ON_SHARDS -> "aggregate on shards: "
          + plan.shardAggregations().stream().map(PlanPrinter::aggregation).collect(Collectors.joining(", "))
          + (plan.shardGroupBy().isEmpty() ? "" : " by " + plan.shardGroupBy().stream().map(Object::toString)
              .collect(Collectors.joining(", ")))
          + "; merge exactly in the service" + having(statement) + order + page;
      case AGGREGATE_ROWS -> "fetch candidate rows" + (plan.serviceFilter() ? ", filter" : "")
          + ", aggregate in the service"
          + (statement.groupBy().isEmpty() ? "" : " by " + statement.groupBy().stream().map(Object::toString)
              .collect(Collectors.joining(", "))) + having(statement) + order + page;
    };
  }

  private static String having(SelectStatement statement) {
    return statement.having() == null ? "" : ", HAVING " + statement.having();
  }

  private static String sort(List<SortField> sort) {
    List<String> keys = new ArrayList<>();
    sort.forEach(field -> keys.add((field.hasExpression() ? ExpressionCodec.decode(field.getExpression()) + " (on the "
        + "shards)" : field.getField()) + (field.getDescending() ? " DESC" : "")));
    keys.add("tenant_id");
    keys.add("row_id");
    return "(" + String.join(", ", keys) + ")";
  }

  private static String aggregation(Aggregation aggregation) {
    String field = aggregation.hasExpression() ? ExpressionCodec.decode(aggregation.getExpression()).toString()
        : aggregation.getField().isEmpty() ? "*" : aggregation.getField();
    return aggregation.getFunction() == Aggregation.Function.AVG ? "AVG(" + field + ") as sum and count"
        : aggregation.getFunction() + "(" + field + ")";
  }
}
