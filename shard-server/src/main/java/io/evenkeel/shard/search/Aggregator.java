package io.evenkeel.shard.search;

import com.google.protobuf.ByteString;
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
import io.evenkeel.schemas.table.KeywordOrder;
import io.evenkeel.schemas.table.TransactionLogsTable;
import io.evenkeel.shard.index.ShardSearcher;
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
 * query's time zone and text bound, and aggregated as the service would ({@link AggregateAccumulator}). When every key
 * can be read as codes ({@link KeyCodes}), a segment's groups are found by their keys' codes and given their values at
 * the segment's end.
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
  /** Where the expressions' rows are read; null when no expression is evaluated on rows. */
  private final RowSource rowSource;
  /**
   * Each key as codes ({@link KeyCodes}), when every key can be read so: then each segment's groups are found by the
   * keys' codes, and made into values at the segment's end. Null when a key is an expression evaluated on rows.
   */
  private final KeyCodes.Key[] keyCodes;
  private final RowConditions conditions;
  private final int maxGroups;
  private final int maxDistinctValues;
  private final MemoryBudget.Reservation memory;
  /** Each aggregation's function. */
  private final Aggregation.Function[] functions;
  /** Where segments' groups are kept; {@link SegmentAggregates#NONE} when nothing is. */
  private final SegmentAggregates cache;
  /** What this request's groups of a segment are kept under; null when they are not kept. */
  private final ByteString requestKey;

  /** An aggregation that keeps its segments' groups in {@code cache} and reuses those kept. */
  Aggregator(io.evenkeel.schemas.shard.Query query, RowConditions conditions, MemoryBudget.Reservation memory,
      SegmentAggregates cache) {
    this.maxGroups = query.getMaxGroups() <= 0 ? Integer.MAX_VALUE : query.getMaxGroups();
    this.maxDistinctValues = query.getMaxDistinctValues() <= 0 ? Integer.MAX_VALUE : query.getMaxDistinctValues();
    this.memory = memory;
    this.conditions = conditions;
    if (query.getGroupByCount() > 0 && query.getGroupByExpressionsCount() > 0) {
      throw new IllegalArgumentException("a query groups by group_by or by group_by_expressions, not both");
    }
    List<Expr> keyExpressions = new ArrayList<>();
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
      keyExpressions.add(expression);
    }
    this.keyCodes = keyCodes(keys, conditions.evaluator());
    List<Expr> expressions = new ArrayList<>(keyCodes == null ? keyExpressions : List.of());
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
    this.functions = aggregations.stream().map(Aggregation::getFunction).toArray(Aggregation.Function[]::new);
    this.cache = cache;
    this.requestKey = cache.requestKey(query);
  }

  /** Every key as codes; null when one is not (or there are too many keys for a long of NULL flags). */
  private static KeyCodes.Key[] keyCodes(List<Key> keys, Evaluator evaluator) {
    if (keys.size() >= Long.SIZE) {
      return null;
    }
    KeyCodes.Key[] codes = new KeyCodes.Key[keys.size()];
    for (int i = 0; i < codes.length; i++) {
      Key key = keys.get(i);
      codes[i] = key.column() != null ? KeyCodes.column(key.column())
          : KeyCodes.expression(key.expression(), evaluator);
      if (codes[i] == null) {
        return null;
      }
    }
    return codes;
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

  /** The heap one group takes: its map entry, accumulators and bucket, and its key's values. */
  private long groupBytes(Object groupKey) {
    long bytes = 2 * (160 + 64L * aggregations.size());
    for (Object value : values(groupKey)) {
      bytes += bytes(value);
    }
    return bytes;
  }

  /**
   * Per-group running values. It holds nothing of the request but the functions it runs, so a segment's groups can be
   * kept in {@link SegmentAggregates} after the request ends; the distinct values it adds are counted by the caller.
   */
  static final class Accumulator {
    private final Aggregation.Function[] functions;
    long docCount;
    final long[] counts;
    final long[] sums;
    final BigInteger[] bigSums;
    final Object[] mins;
    final Object[] maxes;
    final List<Set<Object>> distinct = new ArrayList<>();
    /** The state of each aggregation of an expression; null for the others. */
    final AggregateAccumulator[] expressions;

    Accumulator(Aggregation.Function[] functions, List<Expr.Aggregate> expressionAggregates, int maxDistinctValues) {
      this.functions = functions;
      int n = functions.length;
      counts = new long[n];
      sums = new long[n];
      bigSums = new BigInteger[n];
      mins = new Object[n];
      maxes = new Object[n];
      expressions = new AggregateAccumulator[n];
      for (int i = 0; i < n; i++) {
        Expr.Aggregate aggregate = expressionAggregates.get(i);
        boolean distinctValues = functions[i] == Aggregation.Function.DISTINCT_VALUES;
        distinct.add(distinctValues && aggregate == null ? new HashSet<>() : null);
        expressions[i] = aggregate == null ? null : new AggregateAccumulator(aggregate, maxDistinctValues);
      }
    }

    /** One row's value of aggregation {@code i}'s expression; whether it is a new distinct value. */
    boolean addEvaluated(int i, Object value) {
      return expressions[i].add(value);
    }

    /** One row's value of aggregation {@code i}'s column; whether it is a new distinct value. */
    boolean add(int i, Object value) {
      if (value instanceof Long number) {
        return addLong(i, number);
      }
      counts[i]++;
      if (functions[i] == Aggregation.Function.MIN && (mins[i] == null || compare(value, mins[i]) < 0)) {
        mins[i] = value;
      }
      if (functions[i] == Aggregation.Function.MAX && (maxes[i] == null || compare(value, maxes[i]) > 0)) {
        maxes[i] = value;
      }
      return distinct.get(i) != null && distinct.get(i).add(value);
    }

    /**
     * One row's value of aggregation {@code i}'s numeric column (a DECIMAL's unscaled value), unboxed; whether it is a
     * new distinct value.
     */
    boolean addLong(int i, long value) {
      counts[i]++;
      if (bigSums[i] == null) {
        try {
          sums[i] = Math.addExact(sums[i], value);
        } catch (ArithmeticException overflow) {
          bigSums[i] = BigInteger.valueOf(sums[i]).add(BigInteger.valueOf(value));
        }
      } else {
        bigSums[i] = bigSums[i].add(BigInteger.valueOf(value));
      }
      if (functions[i] == Aggregation.Function.MIN && (mins[i] == null || value < (Long) mins[i])) {
        mins[i] = value;
      }
      if (functions[i] == Aggregation.Function.MAX && (maxes[i] == null || value > (Long) maxes[i])) {
        maxes[i] = value;
      }
      return distinct.get(i) != null && distinct.get(i).add(value);
    }

    /** Adds {@code other}'s rows; {@code other} is only read. */
    void merge(Accumulator other) {
      docCount += other.docCount;
      for (int i = 0; i < functions.length; i++) {
        if (expressions[i] != null) {
          expressions[i].merge(other.expressions[i].partial());
          continue;
        }
        BigInteger sum = total(i).add(other.total(i));
        counts[i] += other.counts[i];
        bigSums[i] = sum.bitLength() < 64 ? null : sum;
        sums[i] = sum.bitLength() < 64 ? sum.longValue() : 0;
        if (other.mins[i] != null && (mins[i] == null || compare(other.mins[i], mins[i]) < 0)) {
          mins[i] = other.mins[i];
        }
        if (other.maxes[i] != null && (maxes[i] == null || compare(other.maxes[i], maxes[i]) > 0)) {
          maxes[i] = other.maxes[i];
        }
        if (distinct.get(i) != null) {
          distinct.get(i).addAll(other.distinct.get(i));
        }
      }
    }

    private BigInteger total(int i) {
      return bigSums[i] != null ? bigSums[i] : BigInteger.valueOf(sums[i]);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
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

  /**
   * Groups by key: with one GROUP BY key, by its value itself (nothing to make and hash per row); with several or
   * none, by a {@link GroupKey} of their values.
   */
  private static final class Groups {
    final Map<Object, Accumulator> byKey = new LinkedHashMap<>();
  }

  /** The map key of a group with these GROUP BY values. */
  private static Object groupKey(Object[] values) {
    return values.length == 1 ? values[0] : new GroupKey(values);
  }

  /** The GROUP BY values of a group's map key. */
  private Object[] values(Object groupKey) {
    return keys.size() == 1 ? new Object[] {groupKey} : ((GroupKey) groupKey).values;
  }

  final class Collector extends SimpleCollector implements ShardSearcher.KeptSegments {
    /** Every group of the segments collected so far. */
    private final Groups groups = new Groups();
    /**
     * The groups the current segment adds to: {@link #groups}, or the segment's own while it is collected to be kept in
     * the cache, added to {@link #groups} when it ends.
     */
    private Groups current = groups;
    /** The current segment's cache key, while it is collected to be kept. */
    private Object segment;
    /** The current segment's keys as codes; null when the keys are not read as codes. */
    private KeyCodes.SegmentCodes[] segmentCodes;
    /**
     * The current segment's groups by their keys' codes, while they are read as codes: the codes, and after them (with
     * two keys or more) the flags of the NULL keys. The group whose every key is NULL is apart, {@link #allNull}: so
     * one key needs no flags, and without GROUP BY every row is in that group, found without a lookup.
     */
    private LongTupleMap<Accumulator> segmentGroups;
    /** The current segment's group whose every key is NULL, once made. */
    private Accumulator allNull;
    /** The current row's keys' codes and NULL flags. */
    private final long[] codes = new long[keyCodes == null ? 0 : keyCodes.length == 1 ? 1 : keyCodes.length + 1];
    private ColumnReader[] keyReaders;
    /** Each aggregation's numeric column, read unboxed; null for the others. */
    private NumericDocValues[] numericInputs;
    /** Each aggregation's keyword column; null for the others. */
    private ColumnReader[] inputReaders;
    private RowSource.Rows rows;
    /** Each key's expression, prepared for this segment; null for a key read from doc values. */
    private CompiledExpression[] keyExpressions;
    /** Each aggregation's expression, prepared for this segment; null for one that reads a column. */
    private CompiledExpression[] argExpressions;
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
      memory.reserve(bytes, () -> String.format("%,d groups and %,d distinct values", groups.byKey.size(),
          distinctValues));
    }

    @Override
    public boolean collectedFromCache(LeafReaderContext context) {
      if (requestKey == null) {
        return false;
      }
      Object key = SegmentAggregates.segmentKey(context);
      Map<Object, Accumulator> kept = key == null ? null : cache.get(key, requestKey);
      if (kept == null) {
        return false;
      }
      add(kept);
      return true;
    }

    @Override
    protected void doSetNextReader(LeafReaderContext context) throws IOException {
      segment = requestKey == null ? null : SegmentAggregates.segmentKey(context);
      if (keyCodes != null) {
        segmentCodes = new KeyCodes.SegmentCodes[keyCodes.length];
        for (int i = 0; i < segmentCodes.length; i++) {
          segmentCodes[i] = keyCodes[i].open(context.reader());
        }
        segmentGroups = new LongTupleMap<>(Math.max(1, codes.length));
        allNull = null;
      } else {
        current = segment == null ? groups : new Groups();
        keyReaders = new ColumnReader[keys.size()];
        for (int i = 0; i < keyReaders.length; i++) {
          Column column = keys.get(i).column();
          keyReaders[i] = column == null ? null : ColumnReader.of(context.reader(), column);
        }
      }
      numericInputs = new NumericDocValues[inputs.size()];
      inputReaders = new ColumnReader[inputs.size()];
      for (int i = 0; i < inputReaders.length; i++) {
        Column input = inputs.get(i);
        if (input != null && input.isNumeric()) {
          numericInputs[i] = DocValues.getNumeric(context.reader(), input.name());
        } else if (input != null) {
          inputReaders[i] = ColumnReader.of(context.reader(), input);
        }
      }
      if (rowSource != null) {
        rows = rowSource.open(context.reader());
        Evaluator evaluator = conditions.evaluator();
        keyExpressions = new CompiledExpression[keys.size()];
        for (int i = 0; i < keyExpressions.length && keyCodes == null; i++) {
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
      Accumulator accumulator = segmentGroups != null ? codedGroup(doc) : group(doc, row);
      accumulator.docCount++;
      for (int i = 0; i < functions.length; i++) {
        if (argExpressions != null && argExpressions[i] != null) {
          Object value = argExpressions[i].eval(row);
          if (accumulator.addEvaluated(i, value)) {
            addedDistinct(value);
          }
        } else if (numericInputs[i] != null) {
          if (numericInputs[i].advanceExact(doc) && accumulator.addLong(i, numericInputs[i].longValue())) {
            addedColumnDistinct(accumulator, i, numericInputs[i].longValue());
          }
        } else if (inputReaders[i] != null) {
          Object value = inputReaders[i].read(doc);
          if (value != null && accumulator.add(i, value)) {
            addedColumnDistinct(accumulator, i, value);
          }
        } else {
          accumulator.counts[i]++; // COUNT(*)
        }
      }
    }

    private void addedColumnDistinct(Accumulator accumulator, int i, Object value) {
      if (accumulator.distinct.get(i).size() > maxDistinctValues) {
        throw new IllegalArgumentException(aggregations.get(i).getFunction() + "(" + aggregations.get(i).getField()
            + ") collects more than " + maxDistinctValues + " distinct values in one group on this shard alone;"
            + " at most " + maxDistinctValues + " per aggregate");
      }
      addedDistinct(value);
    }

    private void addedDistinct(Object value) {
      distinctValues++;
      account(DISTINCT_VALUE_BYTES + bytes(value));
    }

    /** The segment's group of this row by its keys' codes, made (and reserved for) when new. */
    private Accumulator codedGroup(int doc) throws IOException {
      int keyCount = segmentCodes.length;
      if (keyCount == 1) { // the commonest: the shortest path
        return segmentCodes[0].read(doc, codes, 0) ? codedGroup(codes[0]) : allNullGroup();
      }
      long nulls = 0;
      for (int i = 0; i < keyCount; i++) {
        if (!segmentCodes[i].read(doc, codes, i)) {
          codes[i] = 0;
          nulls |= 1L << i;
        }
      }
      if (nulls == (1L << keyCount) - 1) {
        return allNullGroup();
      }
      codes[keyCount] = nulls;
      Accumulator accumulator = segmentGroups.get(codes);
      if (accumulator == null) {
        accumulator = newCodedGroup();
        segmentGroups.put(codes, accumulator);
      }
      return accumulator;
    }

    /** The segment's group of one key's {@code code}. */
    private Accumulator codedGroup(long code) {
      Accumulator accumulator = segmentGroups.get(code);
      if (accumulator == null) {
        accumulator = newCodedGroup();
        segmentGroups.put(codes, accumulator);
      }
      return accumulator;
    }

    private Accumulator allNullGroup() {
      if (allNull == null) {
        allNull = newCodedGroup();
      }
      return allNull;
    }

    private Accumulator newCodedGroup() {
      if (segmentGroups.size() + (allNull == null ? 0 : 1) >= maxGroups) {
        throw tooManyGroups();
      }
      account(2 * (160 + 64L * aggregations.size()) + 16L * codes.length);
      return newAccumulator();
    }

    /** The current segment's groups by their keys' values, made from their codes. */
    private Map<Object, Accumulator> decodedGroups() throws IOException {
      Map<Object, Accumulator> byKey = new LinkedHashMap<>();
      int keyCount = segmentCodes.length;
      if (allNull != null) {
        byKey.put(groupKey(new Object[keyCount]), allNull);
      }
      for (int slot = 0; slot < segmentGroups.slots(); slot++) {
        Accumulator accumulator = segmentGroups.valueAt(slot);
        if (accumulator == null) {
          continue;
        }
        long nulls = keyCount > 1 ? segmentGroups.keyAt(slot, keyCount) : 0;
        Object[] values = new Object[keyCount];
        for (int i = 0; i < keyCount; i++) {
          values[i] = (nulls >>> i & 1) != 0 ? null : segmentCodes[i].value(segmentGroups.keyAt(slot, i));
        }
        byKey.put(groupKey(values), accumulator);
      }
      return byKey;
    }

    /** The group of this row, made (and reserved for) when new. */
    private Accumulator group(int doc, TableRow row) throws IOException {
      Object[] values = new Object[keyReaders.length];
      for (int i = 0; i < values.length; i++) {
        values[i] = keyReaders[i] != null ? keyReaders[i].read(doc) : keyExpressions[i].eval(row);
      }
      Object groupKey = groupKey(values);
      Accumulator accumulator = current.byKey.get(groupKey);
      return accumulator != null ? accumulator : newGroup(current, groupKey);
    }

    /**
     * A new group of {@code groupKey} in {@code into}, checked against the cap and reserved. A segment that makes more
     * groups than are kept stops being collected apart: its groups so far join every segment's, and the rest of it is
     * read into those.
     */
    private Accumulator newGroup(Groups into, Object groupKey) {
      if (into != groups && into.byKey.size() >= SegmentAggregates.MAX_GROUPS) {
        add(into.byKey);
        current = groups;
        Accumulator accumulator = groups.byKey.get(groupKey);
        return accumulator != null ? accumulator : newGroup(groups, groupKey);
      }
      if (into.byKey.size() >= maxGroups) {
        throw tooManyGroups();
      }
      Accumulator accumulator = newAccumulator();
      into.byKey.put(groupKey, accumulator);
      account(groupBytes(groupKey));
      return accumulator;
    }

    /** Adds a segment's groups to every segment's; they are only read, so a kept segment's stay as they are. */
    private void add(Map<Object, Accumulator> segmentGroups) {
      segmentGroups.forEach((groupKey, segmentGroup) -> {
        Accumulator accumulator = groups.byKey.get(groupKey);
        if (accumulator == null) {
          accumulator = newGroup(groups, groupKey);
        }
        accumulator.merge(segmentGroup);
      });
    }

    /**
     * At a segment's end: its groups, if read as codes or still collected apart, are kept and added to every
     * segment's.
     */
    @Override
    public void finish() throws IOException {
      if (segmentGroups != null) {
        Map<Object, Accumulator> segmentByKey = decodedGroups();
        segmentGroups = null;
        if (segment != null && segmentByKey.size() <= SegmentAggregates.MAX_GROUPS) {
          cache.put(segment, requestKey, segmentByKey,
              segmentByKey.keySet().stream().mapToLong(Aggregator.this::groupBytes).sum());
        }
        add(segmentByKey);
        return;
      }
      if (current != groups) {
        cache.put(segment, requestKey, current.byKey,
            current.byKey.keySet().stream().mapToLong(Aggregator.this::groupBytes).sum());
        add(current.byKey);
        current = groups;
      }
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE_NO_SCORES;
    }
  }

  private IllegalArgumentException tooManyGroups() {
    return new IllegalArgumentException("the query makes more than " + maxGroups + " groups on this shard alone;"
        + " at most " + maxGroups + " (narrow the WHERE or group by fewer columns)");
  }

  private Accumulator newAccumulator() {
    return new Accumulator(functions, expressionAggregates, maxDistinctValues);
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
      collector.groups.byKey.forEach((key, acc) -> merged.merge(Arrays.asList(values(key)), acc, (a, b) -> {
        a.merge(b);
        return a;
      }));
    }
    if (merged.isEmpty() && keys.isEmpty()) {
      merged.put(List.of(), newAccumulator());
    }
    List<Bucket> buckets = new ArrayList<>(merged.size());
    merged.forEach((key, acc) -> buckets.add(bucket(key, acc)));
    return buckets;
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
