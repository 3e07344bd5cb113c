package io.evenkeel.expr;

import io.evenkeel.schemas.shard.AggregateValue;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.Set;

/**
 * One aggregate's running state for one group, fed by rows or by shards' partial aggregates, so the result is the
 * same either way and wherever it is computed: sums are exact decimals, AVG is the merged sum over the merged count,
 * COUNT(DISTINCT) the size of the union of the parts' distinct values. A truth value counts as 1 or 0, as in MySQL.
 * A shard aggregating an expression uses this class too, and sends its {@link #partial()}.
 */
public final class AggregateAccumulator {
  private final Expr.Aggregate aggregate;
  private final int maxDistinctValues;
  private long count;
  /** Every digit of the sum, and the digits MySQL shows of it: the most its values show. */
  private BigDecimal sum;
  private int sumShownScale;
  private Object min;
  private Object max;
  private final Set<Object> distinct;

  /** @param maxDistinctValues the most distinct values a COUNT(DISTINCT ...) may hold here */
  public AggregateAccumulator(Expr.Aggregate aggregate, int maxDistinctValues) {
    this.aggregate = aggregate;
    this.maxDistinctValues = maxDistinctValues;
    this.distinct = aggregate.distinct() ? new HashSet<>() : null;
  }

  /**
   * One row's value of the argument ({@code COUNT(*)}: any non-null marker); true when it is a distinct value not
   * held before.
   */
  public boolean add(Object value) {
    if (value == null) {
      return false;
    }
    Object number = value instanceof Boolean truth ? (Object) (truth ? 1L : 0L) : value;
    count++;
    if (distinct != null) {
      return addDistinct(number);
    }
    switch (aggregate.function()) {
      case SUM, AVG -> {
        if (!SqlValues.isNumber(number)) {
          throw ExpressionException.invalid(aggregate.function() + " needs numbers; got "
              + SqlValues.describe(number) + " in " + aggregate);
        }
        addToSum(SqlValues.decimal(number));
      }
      case MIN -> addMin(number);
      case MAX -> addMax(number);
      case COUNT -> { }
    }
    return false;
  }

  private boolean addDistinct(Object value) {
    boolean added = distinct.add(distinctKey(value));
    if (added && distinct.size() > maxDistinctValues) {
      throw ExpressionException.invalid(aggregate + " counts more than " + maxDistinctValues
          + " distinct values; at most " + maxDistinctValues + " per aggregate");
    }
    return added;
  }

  private void addToSum(BigDecimal number) {
    sum = sum == null ? number : sum.add(number);
    sumShownScale = Math.max(sumShownScale, SqlValues.shownScale(number));
  }

  private void addMin(Object value) {
    if (value != null && (min == null || SqlValues.compare(value, min) < 0)) {
      min = value;
    }
  }

  private void addMax(Object value) {
    if (value != null && (max == null || SqlValues.compare(value, max) > 0)) {
      max = value;
    }
  }

  /** A part's partial result of the same aggregate: a shard's, or another accumulator's {@link #partial()}. */
  public void merge(AggregateValue partial) {
    if (distinct != null) {
      for (Value value : partial.getDistinctValuesList()) {
        Object v = SqlValueCodec.decode(value);
        if (v != null) {
          addDistinct(v);
        }
      }
      return;
    }
    count += partial.getCount();
    switch (aggregate.function()) {
      case SUM, AVG -> {
        Object part = SqlValueCodec.decode(partial.getSum());
        if (part != null) {
          addToSum(SqlValues.decimal(part));
        }
      }
      case MIN -> addMin(SqlValueCodec.decode(partial.getMin()));
      case MAX -> addMax(SqlValueCodec.decode(partial.getMax()));
      case COUNT -> { }
    }
  }

  /** This state as a partial result that {@link #merge} takes. */
  public AggregateValue partial() {
    AggregateValue.Builder partial = AggregateValue.newBuilder().setCount(count);
    if (distinct != null) {
      distinct.forEach(value -> partial.addDistinctValues(SqlValueCodec.encode(value)));
      return partial.build();
    }
    switch (aggregate.function()) {
      case SUM, AVG -> partial.setSum(SqlValueCodec.encode(sum == null ? null : SqlDecimal.of(sum, sumShownScale)));
      case MIN -> partial.setMin(SqlValueCodec.encode(min));
      case MAX -> partial.setMax(SqlValueCodec.encode(max));
      case COUNT -> { }
    }
    return partial.build();
  }

  /** MySQL's results: COUNT a number, SUM/AVG/MIN/MAX NULL over no values, AVG with 4 more fractional digits. */
  public Object result() {
    if (distinct != null) {
      return (long) distinct.size();
    }
    BigDecimal total = sum == null ? null : SqlDecimal.of(sum, sumShownScale);
    return switch (aggregate.function()) {
      case COUNT -> count;
      case SUM -> total;
      case AVG -> total == null ? null : SqlValues.quotient(total, BigDecimal.valueOf(count));
      case MIN -> min;
      case MAX -> max;
    };
  }

  /** 1.5 and 1.50 are one distinct value; a quotient is the value it shows. */
  private static Object distinctKey(Object value) {
    return value instanceof BigDecimal || value instanceof Long
        ? SqlValues.decimal(SqlValues.shown(value)).stripTrailingZeros() : value;
  }
}
