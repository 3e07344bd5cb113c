package io.evenkeel.shard.search;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.AggregateAccumulator;
import io.evenkeel.expr.AggregateFunction;
import io.evenkeel.expr.CompiledExpression;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.SqlValueCodec;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.shard.AggregateValue;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.Expression;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.KeywordOrder;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;

/**
 * Aggregates matching rows per group from doc values: COUNT, SUM (exact, as a long until it would overflow, then a
 * BigInteger), MIN, MAX, AVG (as sum and count, so shards merge exactly) and the distinct values (for an exact COUNT
 * DISTINCT across shards). NULL forms its own group; an aggregate without groups over no rows still gives one bucket.
 * A group key or an aggregate may also be an expression ({@code GROUP BY DATE(FROM_UNIXTIME(created_time / 1000))},
 * {@code SUM(price * quantity)}): it is evaluated on each matching row, read where {@link RowSource} says, with the
 * query's time zone and text bound, and aggregated as the service would ({@link AggregateAccumulator}).
 * Every group and distinct value is reserved against the request's memory budget as it is made, with room for its
 * bucket in the answer; the query's group and distinct-value caps are checked there too.
 */
final class Aggregator implements CollectorManager<Aggregator.Collector, List<Bucket>> {
  /** Reservations are taken in steps of this much, not per group: the budget is shared by every request. */
  private static final long RESERVE_STEP = 64 * 1024;

  /** A group key: a column read from doc values, or an expression evaluated on the row. */
  private record Key(Column column, Expr expression) {}

  private final List<Key> keys;
  private final List<Aggregation> aggregations;
  /** The column each aggregation reads; null for COUNT(*) and for an expression. */
  private final List<Column> inputs;
  /** The aggregate of each aggregation of an expression; null for the others. */
  private final List<Expr.Aggregate> expressionAggregates;
  /** Where the expressions' rows are read; null when there is no expression. */
  private final RowSource rowSource;
  private final RowConditions conditions;
  private final int maxGroups;
  private final int maxDistinctValues;
  private final MemoryBudget.Reservation memory;

  Aggregator(io.evenkeel.schemas.shard.Query query, RowConditions conditions, MemoryBudget.Reservation memory) {
    this.maxGroups = query.getMaxGroups() <= 0 ? Integer.MAX_VALUE : query.getMaxGroups();
    this.maxDistinctValues = query.getMaxDistinctValues() <= 0 ? Integer.MAX_VALUE : query.getMaxDistinctValues();
    this.memory = memory;
    this.conditions = conditions;
    if (query.getGroupByCount() > 0 && query.getGroupByExpressionsCount() > 0) {
      throw new IllegalArgumentException("a query groups by group_by or by group_by_expressions, not both");
    }
    List<Expr> expressions = new ArrayList<>();
    this.keys = new ArrayList<>();
    for (String name : query.getGroupByList()) {
      Column column = TransactionLogsTable.require(name);
      if (!column.hasDocValues()) {
        throw new IllegalArgumentException("cannot group by " + name + " (" + column.type() + ")");
      }
      keys.add(new Key(column, null));
    }
    for (Expression wire : query.getGroupByExpressionsList()) {
      Expr expression = ExpressionCodec.decode(wire);
      keys.add(new Key(null, expression));
      expressions.add(expression);
    }
    this.aggregations = query.getAggregationsList();
    this.inputs = new ArrayList<>();
    this.expressionAggregates = new ArrayList<>();
    for (Aggregation aggregation : aggregations) {
      Expr.Aggregate aggregate = aggregation.hasExpression() ? expressionAggregate(aggregation) : null;
      expressionAggregates.add(aggregate);
      inputs.add(aggregate == null ? input(aggregation) : null);
      if (aggregate != null) {
        expressions.add(aggregate.arg());
      }
    }
    this.rowSource = expressions.isEmpty() ? null : RowSource.of(expressions);
  }

  /** Whether the query groups by exactly one integer column read from doc values. */
  private boolean singleIntegerKey() {
    return keys.size() == 1 && keys.get(0).column() != null && keys.get(0).column().isNumeric()
        && keys.get(0).column().type() != ColumnType.DECIMAL;
  }

  private static Expr.Aggregate expressionAggregate(Aggregation aggregation) {
    if (!aggregation.getField().isEmpty()) {
      throw new IllegalArgumentException("an aggregation reads a field or an expression, not both");
    }
    Expr arg = ExpressionCodec.decode(aggregation.getExpression());
    return switch (aggregation.getFunction()) {
      case COUNT -> new Expr.Aggregate(AggregateFunction.COUNT, false, arg);
      case SUM -> new Expr.Aggregate(AggregateFunction.SUM, false, arg);
      case MIN -> new Expr.Aggregate(AggregateFunction.MIN, false, arg);
      case MAX -> new Expr.Aggregate(AggregateFunction.MAX, false, arg);
      case AVG -> new Expr.Aggregate(AggregateFunction.AVG, false, arg);
      case DISTINCT_VALUES -> new Expr.Aggregate(AggregateFunction.COUNT, true, arg);
      case UNRECOGNIZED -> throw new IllegalArgumentException("an unknown aggregation function");
    };
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

  /**
   * The heap a group key's value takes (a boxed long, a string, a decimal or a date-time), twice: once in the map,
   * once in the answer.
   */
  private static long bytes(Object value) {
    return 2 * ValueBytes.of(value);
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
    /** The state of each aggregation of an expression; null for the others. */
    final AggregateAccumulator[] expressions = new AggregateAccumulator[aggregations.size()];

    Accumulator(Collector collector) {
      this.collector = collector;
      for (int i = 0; i < aggregations.size(); i++) {
        Expr.Aggregate aggregate = expressionAggregates.get(i);
        boolean distinctValues = aggregations.get(i).getFunction() == Aggregation.Function.DISTINCT_VALUES;
        distinct.add(distinctValues && aggregate == null ? new HashSet<>() : null);
        expressions[i] = aggregate == null ? null : new AggregateAccumulator(aggregate, maxDistinctValues);
      }
    }

    /** One row's value of aggregation {@code i}'s expression. */
    void addEvaluated(int i, Object value) {
      if (expressions[i].add(value)) {
        collector.distinctValues++;
        collector.account(DISTINCT_VALUE_BYTES + bytes(value));
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
      Aggregation.Function function = aggregations.get(i).getFunction();
      if (function == Aggregation.Function.MIN && (mins[i] == null || compare(value, mins[i]) < 0)) {
        mins[i] = value;
      }
      if (function == Aggregation.Function.MAX && (maxes[i] == null || compare(value, maxes[i]) > 0)) {
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


  /**
   * Several GROUP BY values as one map key, looked up once per row: hashed once, and compared without the iterators
   * a list's equals walks (a third of a two-key aggregation's time went to hashing and comparing lists).
   */
  private static final class GroupKey {
    private final Object[] values;
    private final int hash;

    GroupKey(Object[] values) {
      this.values = values;
      this.hash = Arrays.hashCode(values);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof GroupKey key && hash == key.hash && Arrays.equals(values, key.values);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  final class Collector extends SimpleCollector {
    /**
     * The groups by key: with one GROUP BY key, by its value itself (nothing to make and hash per row); with several,
     * by a {@link GroupKey} of their values.
     */
    private final Map<Object, Accumulator> groups = new LinkedHashMap<>();
    /** With one integer key read from doc values: the same groups by its value, found without boxing it. */
    private final LongKeyedMap<Accumulator> integerGroups = singleIntegerKey() ? new LongKeyedMap<>() : null;
    /** That key's doc values in the current segment. */
    private NumericDocValues integerKey;
    private ColumnReader[] keyReaders;
    private ColumnReader[] inputReaders;
    private RowSource.Rows rows;
    /** Each key's expression, prepared for this segment; null for a key read from doc values. */
    private CompiledExpression[] keyExpressions;
    /** Each aggregation's expression, prepared for this segment; null for one that reads a column. */
    private CompiledExpression[] argExpressions;
    /** Without GROUP BY: the one group, once made. */
    private Accumulator only;
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
      memory.reserve(bytes, () -> String.format("%,d groups and %,d distinct values", groups.size(), distinctValues));
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      keyReaders = new ColumnReader[keys.size()];
      for (int i = 0; i < keyReaders.length; i++) {
        Column column = keys.get(i).column();
        keyReaders[i] = column == null ? null : ColumnReader.of(context.reader(), column);
      }
      if (integerGroups != null) {
        integerKey = DocValues.getNumeric(context.reader(), keys.get(0).column().name());
      }
      inputReaders = new ColumnReader[inputs.size()];
      for (int i = 0; i < inputReaders.length; i++) {
        inputReaders[i] = inputs.get(i) == null ? null : ColumnReader.of(context.reader(), inputs.get(i));
      }
      if (rowSource != null) {
        rows = rowSource.open(context.reader());
        Evaluator evaluator = conditions.evaluator();
        keyExpressions = new CompiledExpression[keys.size()];
        for (int i = 0; i < keyExpressions.length; i++) {
          Expr expression = keys.get(i).expression();
          keyExpressions[i] = expression == null ? null : evaluator.compile(expression);
        }
        argExpressions = new CompiledExpression[expressionAggregates.size()];
        for (int i = 0; i < argExpressions.length; i++) {
          Expr.Aggregate aggregate = expressionAggregates.get(i);
          argExpressions[i] = aggregate == null ? null : evaluator.compile(aggregate.arg());
        }
      }
    }

    @Override
    public void collect(int doc) throws IOException {
      TableRow row = null;
      if (rows != null) {
        row = rows.row(doc);
        if (row == null) {
          return; // a tombstone: the live-rows filter keeps them out; no row to aggregate either way
        }
      }
      Accumulator accumulator = keyReaders.length == 0 ? only : null;
      if (accumulator == null) {
        accumulator = group(doc, row);
      }
      accumulator.docCount++;
      for (int i = 0; i < inputReaders.length; i++) {
        if (argExpressions != null && argExpressions[i] != null) {
          accumulator.addEvaluated(i, argExpressions[i].eval(row));
          continue;
        }
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

    /** The group of this row, made (and reserved for) when new; the one group when there are no keys. */
    private Accumulator group(int doc, TableRow row) throws IOException {
      if (integerKey != null && integerKey.advanceExact(doc)) {
        long value = integerKey.longValue();
        Accumulator accumulator = integerGroups.get(value);
        if (accumulator == null) {
          accumulator = newGroup(value, new Object[] {value});
          integerGroups.put(value, accumulator);
        }
        return accumulator;
      }
      Object[] key = new Object[keyReaders.length];
      for (int i = 0; i < key.length; i++) {
        key[i] = keyReaders[i] != null ? keyReaders[i].read(doc) : keyExpressions[i].eval(row);
      }
      Object groupKey = key.length == 1 ? key[0] : new GroupKey(key);
      Accumulator accumulator = groups.get(groupKey);
      if (accumulator == null) {
        accumulator = newGroup(groupKey, key);
      }
      if (key.length == 0) {
        only = accumulator; // without GROUP BY every row is in it: no lookup per row
      }
      return accumulator;
    }

    /** A new group of {@code groupKey} (its values {@code key}), checked against the cap and reserved. */
    private Accumulator newGroup(Object groupKey, Object[] key) {
      if (groups.size() >= maxGroups) {
        throw new IllegalArgumentException("the query makes more than " + maxGroups + " groups on this shard alone;"
            + " at most " + maxGroups + " (narrow the WHERE or group by fewer columns)");
      }
      Accumulator accumulator = new Accumulator(this);
      groups.put(groupKey, accumulator);
      long bytes = groupBytes();
      for (Object value : key) {
        bytes += bytes(value);
      }
      account(bytes);
      return accumulator;
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
      collector.groups.forEach((key, acc) -> merged.merge(keys.size() == 1 ? Collections.singletonList(key)
          : Arrays.asList(((GroupKey) key).values), acc, this::merge));
    }
    if (merged.isEmpty() && keys.isEmpty()) {
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
      if (a.expressions[i] != null) {
        a.expressions[i].merge(b.expressions[i].partial());
        continue;
      }
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
      Column column = keys.get(i).column();
      bucket.addKey(column != null ? FieldValues.toValue(column, key.get(i)) : SqlValueCodec.encode(key.get(i)));
    }
    for (int i = 0; i < aggregations.size(); i++) {
      if (acc.expressions[i] != null) {
        bucket.addValues(acc.expressions[i].partial());
        continue;
      }
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
