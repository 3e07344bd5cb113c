package io.evenkeel.query.parse;

import io.evenkeel.query.expr.Expr;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * How many queries used each attribute key ({@code attr('k')} anywhere in the statement): frequency-based indexing
 * gives the most used keys their own index fields on the shards. Thread-safe; the service records every statement it
 * parses.
 */
public final class AttributeFrequency {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  /** Counts the statement once for each attribute key it uses. */
  public void record(SelectStatement statement) {
    Set<String> keys = new HashSet<>();
    statement.items().forEach(item -> collect(item.expr(), keys));
    collect(statement.where(), keys);
    collect(statement.having(), keys);
    statement.groupBy().forEach(expr -> collect(expr, keys));
    statement.orderBy().forEach(item -> collect(item.expr(), keys));
    keys.forEach(key -> counts.computeIfAbsent(key, k -> new LongAdder()).increment());
  }

  private static void collect(Expr expr, Set<String> keys) {
    if (expr instanceof Expr.Attr attr) {
      keys.add(attr.key());
    } else if (expr instanceof Expr.Call call) {
      call.args().forEach(arg -> collect(arg, keys));
    } else if (expr instanceof Expr.Aggregate aggregate && aggregate.arg() != null) {
      collect(aggregate.arg(), keys);
    }
  }

  /** Keys with their query counts, most used first (ties by key). */
  public Map<String, Long> snapshot() {
    return counts.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue().sum()))
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }

  /** The {@code limit} most used keys: the hot attribute list to configure on the shard servers. */
  public List<String> hottest(int limit) {
    return snapshot().keySet().stream().limit(limit).collect(Collectors.toList());
  }
}
