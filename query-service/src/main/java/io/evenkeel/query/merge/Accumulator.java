package io.evenkeel.query.merge;

import io.evenkeel.expr.AggregateFunction;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.shard.AggregateValue;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashSet;
import java.util.Set;

/**
 * One aggregate's running state for one group, fed by rows or by shards' partial aggregates, so the result is the
 * same either way: sums are exact decimals, AVG is the merged sum over the merged count, COUNT(DISTINCT) the size of
 * the union of the shards' distinct values.
 */
final class Accumulator {
  /** Distinct values one COUNT(DISTINCT ...) may hold in the service. */
  public static final int MAX_DISTINCT_VALUES = 1_000_000;

  private final Expr.Aggregate aggregate;
  private long count;
  private BigDecimal sum;
  private Object min;
  private Object max;
  private final Set<Object> distinct;

  Accumulator(Expr.Aggregate aggregate) {
    this.aggregate = aggregate;
    this.distinct = aggregate.distinct() ? new HashSet<>() : null;
  }

  private void addDistinct(Object value) {
    if (distinct.add(distinctKey(value)) && distinct.size() > MAX_DISTINCT_VALUES) {
      throw QueryException.invalid(aggregate + " counts more than " + MAX_DISTINCT_VALUES + " distinct values; at most "
          + MAX_DISTINCT_VALUES + " per aggregate");
    }
  }

  /** One row's value of the argument ({@code COUNT(*)}: any non-null marker). */
  void add(Object value) {
    if (value == null) {
      return;
    }
    count++;
    if (distinct != null) {
      addDistinct(value);
      return;
    }
    switch (aggregate.function()) {
      case SUM, AVG -> {
        if (!SqlValues.isNumber(value)) {
          throw QueryException.invalid(aggregate.function() + " needs numbers; got "
              + SqlValues.describe(value) + " in " + aggregate);
        }
        BigDecimal number = SqlValues.decimal(value);
        sum = sum == null ? number : sum.add(number);
      }
      case MIN -> min = min == null || ValueOrder.compare(value, min) < 0 ? value : min;
      case MAX -> max = max == null || ValueOrder.compare(value, max) > 0 ? value : max;
      case COUNT -> { }
    }
  }

  /** A shard's partial result of the same aggregate (as {@code Optimizer} requested it). */
  void merge(AggregateValue partial) {
    if (distinct != null) {
      for (Value value : partial.getDistinctValuesList()) {
        Object v = ValueOrder.fromShard(value);
        if (v != null) {
          addDistinct(v);
        }
      }
      return;
    }
    count += partial.getCount();
    switch (aggregate.function()) {
      case SUM, AVG -> {
        Object part = ValueOrder.fromShard(partial.getSum());
        if (part != null) {
          BigDecimal number = SqlValues.decimal(part);
          sum = sum == null ? number : sum.add(number);
        }
      }
      case MIN -> add(ValueOrder.fromShard(partial.getMin()), true);
      case MAX -> add(ValueOrder.fromShard(partial.getMax()), false);
      case COUNT -> { }
    }
  }

  private void add(Object value, boolean isMin) {
    if (value == null) {
      return;
    }
    if (isMin) {
      min = min == null || ValueOrder.compare(value, min) < 0 ? value : min;
    } else {
      max = max == null || ValueOrder.compare(value, max) > 0 ? value : max;
    }
  }

  /** MySQL's results: COUNT a number, SUM/AVG/MIN/MAX NULL over no values, AVG with 4 more fractional digits. */
  Object result() {
    if (distinct != null) {
      return (long) distinct.size();
    }
    return switch (aggregate.function()) {
      case COUNT -> count;
      case SUM -> sum;
      case AVG -> sum == null ? null : sum.divide(BigDecimal.valueOf(count),
          Math.max(sum.scale(), 0) + SqlValues.DIV_PRECISION_INCREMENT, RoundingMode.HALF_UP);
      case MIN -> min;
      case MAX -> max;
    };
  }

  /** 1.5 and 1.50 are one distinct value. */
  private static Object distinctKey(Object value) {
    return value instanceof BigDecimal || value instanceof Long
        ? SqlValues.decimal(value).stripTrailingZeros() : value;
  }

  AggregateFunction function() {
    return aggregate.function();
  }
}
