package io.evenkeel.shard.search;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.schemas.shard.AggregateValue;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.KeywordOrder;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;

/**
 * Aggregates matching rows per group from doc values: COUNT, SUM (exact, as a long until it would overflow, then a
 * BigInteger), MIN, MAX, AVG (as sum and count, so shards merge exactly) and the distinct values (for an exact COUNT
 * DISTINCT across shards). NULL forms its own group; an aggregate without groups over no rows still gives one bucket.
 * Every group and distinct value is reserved against the request's memory budget as it is made, with room for its
 * bucket in the answer; the query's group and distinct-value caps are checked there too.
 */
final class Aggregator implements CollectorManager<Aggregator.Collector, List<Bucket>> {
  /** Reservations are taken in steps of this much, not per group: the budget is shared by every request. */
  private static final long RESERVE_STEP = 64 * 1024;

  private final List<Column> groupBy;
  private final List<Aggregation> aggregations;
  /** The column each aggregation reads; null for COUNT(*). */
  private final List<Column> inputs;
  private final int maxGroups;
  private final int maxDistinctValues;
  private final MemoryBudget.Reservation memory;

  Aggregator(io.evenkeel.schemas.shard.Query query, MemoryBudget.Reservation memory) {
    this(query.getGroupByList(), query.getAggregationsList(), query.getMaxGroups(), query.getMaxDistinctValues(),
        memory);
  }

  Aggregator(List<String> groupBy, List<Aggregation> aggregations, int maxGroups, int maxDistinctValues,
      MemoryBudget.Reservation memory) {
    this.maxGroups = maxGroups <= 0 ? Integer.MAX_VALUE : maxGroups;
    this.maxDistinctValues = maxDistinctValues <= 0 ? Integer.MAX_VALUE : maxDistinctValues;
    this.memory = memory;
    this.groupBy = new ArrayList<>();
    for (String name : groupBy) {
      Column column = TransactionLogsTable.require(name);
      if (!column.hasDocValues()) {
        throw new IllegalArgumentException("cannot group by " + name + " (" + column.type() + ")");
      }
      this.groupBy.add(column);
    }
    this.aggregations = aggregations;
    this.inputs = new ArrayList<>();
    for (Aggregation aggregation : aggregations) {
      inputs.add(input(aggregation));
    }
  }

  private static Column input(Aggregation aggregation) {
    Aggregation.Function function = aggregation.getFunction();
    if (aggregation.getField().isEmpty()) {
      if (function != Aggregation.Function.COUNT) {
        throw new IllegalArgumentException(function + " needs a field");
      }
      return null;
    }
    Column column = TransactionLogsTable.require(aggregation.getField());
    if (!column.hasDocValues()) {
      throw new IllegalArgumentException(function + "(" + column.name() + ") is not supported: " + column.name()
          + " is " + column.type() + " and has no doc values");
    }
    if ((function == Aggregation.Function.SUM || function == Aggregation.Function.AVG) && !column.isNumeric()) {
      throw new IllegalArgumentException(function + " needs a numeric column; " + column.name() + " is "
          + column.type());
    }
    return column;
  }

  /** A distinct value's entry in its set and its copy in the answer, besides the value itself. */
  private static final long DISTINCT_VALUE_BYTES = 2 * 48;

  /** The heap a group key's value takes (a boxed long, or a string), twice: once in the map, once in the answer. */
  private static long bytes(Object value) {
    if (value instanceof String text) {
      return 2 * (48 + 2L * text.length());
    }
    return value == null ? 0 : 2 * 24;
  }

  /** The heap one group takes besides its key's values: its map entry, accumulators and bucket. */
  private long groupBytes() {
    return 2 * (160 + 64L * aggregations.size());
  }

  /** Per-group running values. */
  private final class Accumulator {
    private final Collector collector;
    long docCount;
    final long[] counts = new long[aggregations.size()];
    final long[] sums = new long[aggregations.size()];
    final BigInteger[] bigSums = new BigInteger[aggregations.size()];
    final Object[] mins = new Object[aggregations.size()];
    final Object[] maxes = new Object[aggregations.size()];
    final List<Set<Object>> distinct = new ArrayList<>();

    Accumulator(Collector collector) {
      this.collector = collector;
      for (int i = 0; i < aggregations.size(); i++) {
        distinct.add(aggregations.get(i).getFunction() == Aggregation.Function.DISTINCT_VALUES ? new HashSet<>() : null);
      }
    }

    void add(int i, Object value) {
      counts[i]++;
      if (value instanceof Long number && bigSums[i] == null) {
        try {
          sums[i] = Math.addExact(sums[i], number);
        } catch (ArithmeticException overflow) {
          bigSums[i] = BigInteger.valueOf(sums[i]).add(BigInteger.valueOf(number));
        }
      } else if (value instanceof Long number) {
        bigSums[i] = bigSums[i].add(BigInteger.valueOf(number));
      }
      if (mins[i] == null || compare(value, mins[i]) < 0) {
        mins[i] = value;
      }
      if (maxes[i] == null || compare(value, maxes[i]) > 0) {
        maxes[i] = value;
      }
      if (distinct.get(i) != null && distinct.get(i).add(value)) {
        if (distinct.get(i).size() > maxDistinctValues) {
          throw new IllegalArgumentException(aggregations.get(i).getFunction() + "(" + aggregations.get(i).getField()
              + ") collects more than " + maxDistinctValues + " distinct values in one group on this shard alone;"
              + " at most " + maxDistinctValues + " per aggregate");
        }
        collector.distinctValues++;
        collector.account(DISTINCT_VALUE_BYTES + bytes(value));
      }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private int compare(Object a, Object b) {
      if (a instanceof String x && b instanceof String y) {
        return KeywordOrder.compare(x, y);
      }
      return ((Comparable) a).compareTo(b);
    }
  }


  final class Collector extends SimpleCollector {
    private final Map<List<Object>, Accumulator> groups = new LinkedHashMap<>();
    private ColumnReader[] groupReaders;
    private ColumnReader[] inputReaders;
    private long distinctValues;
    /** Accounted, not yet reserved. */
    private long pending;

    void account(long bytes) {
      pending += bytes;
      if (bytes >= 0 && pending >= RESERVE_STEP) {
        reservePending();
      }
    }

    void reservePending() {
      long bytes = pending;
      pending = 0;
      memory.reserve(bytes, String.format("%,d groups and %,d distinct values", groups.size(), distinctValues));
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      groupReaders = new ColumnReader[groupBy.size()];
      for (int i = 0; i < groupReaders.length; i++) {
        groupReaders[i] = ColumnReader.of(context.reader(), groupBy.get(i));
      }
      inputReaders = new ColumnReader[inputs.size()];
      for (int i = 0; i < inputReaders.length; i++) {
        inputReaders[i] = inputs.get(i) == null ? null : ColumnReader.of(context.reader(), inputs.get(i));
      }
    }

    @Override
    public void collect(int doc) throws IOException {
      Object[] key = new Object[groupReaders.length];
      for (int i = 0; i < key.length; i++) {
        key[i] = groupReaders[i].read(doc);
      }
      List<Object> groupKey = Arrays.asList(key);
      Accumulator accumulator = groups.get(groupKey);
      if (accumulator == null) {
        if (groups.size() >= maxGroups) {
          throw new IllegalArgumentException("the query makes more than " + maxGroups + " groups on this shard alone;"
              + " at most " + maxGroups + " (narrow the WHERE or group by fewer columns)");
        }
        accumulator = new Accumulator(this);
        groups.put(groupKey, accumulator);
        long bytes = groupBytes();
        for (Object value : key) {
          bytes += bytes(value);
        }
        account(bytes);
      }
      accumulator.docCount++;
      for (int i = 0; i < inputReaders.length; i++) {
        if (inputReaders[i] == null) {
          accumulator.counts[i]++;
          continue;
        }
        Object value = inputReaders[i].read(doc);
        if (value != null) {
          accumulator.add(i, value);
        }
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }

  @Override
  public Collector newCollector() {
    return new Collector();
  }

  @Override
  public List<Bucket> reduce(Collection<Collector> collectors) {
    Map<List<Object>, Accumulator> merged = new LinkedHashMap<>();
    for (Collector collector : collectors) {
      collector.reservePending();
      collector.groups.forEach((key, acc) -> merged.merge(key, acc, this::merge));
    }
    if (merged.isEmpty() && groupBy.isEmpty()) {
      merged.put(List.of(), new Accumulator(newCollector()));
    }
    List<Bucket> buckets = new ArrayList<>(merged.size());
    merged.forEach((key, acc) -> buckets.add(bucket(key, acc)));
    return buckets;
  }

  private Accumulator merge(Accumulator a, Accumulator b) {
    // One searcher slice in practice; merge by replaying b's state into a.
    a.docCount += b.docCount;
    for (int i = 0; i < aggregations.size(); i++) {
      BigInteger sum = total(a, i).add(total(b, i));
      a.counts[i] += b.counts[i];
      a.bigSums[i] = sum.bitLength() < 64 ? null : sum;
      a.sums[i] = sum.bitLength() < 64 ? sum.longValue() : 0;
      if (b.mins[i] != null && (a.mins[i] == null || a.compare(b.mins[i], a.mins[i]) < 0)) {
        a.mins[i] = b.mins[i];
      }
      if (b.maxes[i] != null && (a.maxes[i] == null || a.compare(b.maxes[i], a.maxes[i]) > 0)) {
        a.maxes[i] = b.maxes[i];
      }
      if (a.distinct.get(i) != null) {
        a.distinct.get(i).addAll(b.distinct.get(i));
      }
    }
    return a;
  }

  private static BigInteger total(Accumulator acc, int i) {
    return acc.bigSums[i] != null ? acc.bigSums[i] : BigInteger.valueOf(acc.sums[i]);
  }

  private Bucket bucket(List<Object> key, Accumulator acc) {
    Bucket.Builder bucket = Bucket.newBuilder().setDocCount(acc.docCount);
    for (int i = 0; i < key.size(); i++) {
      bucket.addKey(FieldValues.toValue(groupBy.get(i), key.get(i)));
    }
    for (int i = 0; i < aggregations.size(); i++) {
      Column input = inputs.get(i);
      AggregateValue.Builder value = AggregateValue.newBuilder().setCount(acc.counts[i]);
      if (input != null) {
        switch (aggregations.get(i).getFunction()) {
          case SUM, AVG -> value.setSum(FieldValues.toValue(input, acc.bigSums[i] != null ? acc.bigSums[i]
              : acc.counts[i] == 0 ? null : (Object) acc.sums[i]));
          case MIN -> value.setMin(FieldValues.toValue(input, acc.mins[i]));
          case MAX -> value.setMax(FieldValues.toValue(input, acc.maxes[i]));
          case DISTINCT_VALUES -> acc.distinct.get(i).forEach(v -> value.addDistinctValues(FieldValues.toValue(input, v)));
          case COUNT, UNRECOGNIZED -> { }
        }
      }
      bucket.addValues(value);
    }
    return bucket.build();
  }
}
