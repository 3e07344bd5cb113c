package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * How many queries used each attribute key ({@code attr('k')} anywhere in the statement): frequency-based indexing
 * gives the most used keys their own index fields on the shards. Besides the totals, it counts each interval's queries
 * per key and per party (the tenant a query names, or its key), so that the choice can weigh every party's queries up
 * to a cap: one tenant's flood cannot push out the keys the others use. Bounded: at most {@link #MAX_KEYS} keys are
 * counted in all, and an interval counts at most {@link #MAX_PAIRS} key-party pairs, of which at most {@link
 * #MAX_KEYS_PER_PARTY} keys of one party: a query with made-up keys costs no memory beyond, and one party's made-up
 * keys leave room for the others'. Thread-safe; the service records every statement it parses.
 */
public final class AttributeFrequency {
  public static final int MAX_KEYS = 10_000;
  public static final int MAX_PAIRS = 100_000;
  public static final int MAX_KEYS_PER_PARTY = 1_000;

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final AtomicReference<Interval> interval = new AtomicReference<>(new Interval());

  /** One interval's queries per key and party. */
  private static final class Interval {
    final Map<String, Map<String, LongAdder>> byKey = new ConcurrentHashMap<>();
    final AtomicInteger pairs = new AtomicInteger();
    final Map<String, AtomicInteger> keysOf = new ConcurrentHashMap<>();
  }

  /** Counts the statement once for each attribute key it uses, for no party in particular. */
  public void record(SelectStatement statement) {
    record(statement, "-");
  }

  /** Counts the statement once for each attribute key it uses, as one of {@code party}'s queries. */
  public void record(SelectStatement statement, String party) {
    Set<String> keys = new HashSet<>();
    statement.items().forEach(item -> collect(item.expr(), keys));
    collect(statement.where(), keys);
    collect(statement.having(), keys);
    statement.groupBy().forEach(expr -> collect(expr, keys));
    statement.orderBy().forEach(item -> collect(item.expr(), keys));
    Interval current = interval.get();
    for (String key : keys) {
      if (counts.size() < MAX_KEYS || counts.containsKey(key)) {
        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
      }
      Map<String, LongAdder> parties = current.byKey.get(key);
      LongAdder count = parties == null ? null : parties.get(party);
      if (count == null) {
        AtomicInteger partyKeys = current.keysOf.get(party);
        if (current.pairs.get() >= MAX_PAIRS || partyKeys != null && partyKeys.get() >= MAX_KEYS_PER_PARTY) {
          continue;
        }
        current.keysOf.computeIfAbsent(party, p -> new AtomicInteger()).incrementAndGet();
        count = current.byKey.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).computeIfAbsent(party, p -> {
          current.pairs.incrementAndGet();
          return new LongAdder();
        });
      }
      count.increment();
    }
  }

  /** The queries per key and party since the last call (or since this began), and a new interval from now. */
  public Map<String, Map<String, Long>> takeInterval() {
    Interval taken = interval.getAndSet(new Interval());
    Map<String, Map<String, Long>> counts = new HashMap<>();
    taken.byKey.forEach((key, parties) -> parties.forEach((party, count) ->
        counts.computeIfAbsent(key, k -> new HashMap<>()).put(party, count.sum())));
    return counts;
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
