package io.evenkeel.query.optimize;

import io.evenkeel.expr.Op;
import io.evenkeel.query.normalize.Field;
import io.evenkeel.query.normalize.MergeRanges;
import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.query.normalize.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * The longest match of ANDed columns over the composite indexes: equalities on a prefix of an index's columns and an
 * equality or a range on the next become one range over the index ({@code tenant_id = 7 AND created_time >= t} is
 * one 16-byte point range instead of two point queries intersected). A match must cover at least two columns; an IN
 * on the first column becomes a union of ranges, one per value.
 */
final class CompositeIndexRule implements AccessRule {
  /** An IN longer than this on the leading column is cheaper as a terms lookup than as that many ranges. */
  static final int MAX_UNION = 64;

  @Override
  public String name() {
    return "CompositeIndexRule";
  }

  @Override
  public void apply(ConjunctGroup group) {
    Match best = null;
    for (CompositeIndex index : group.settings().compositeIndexes()) {
      Match match = longestMatch(index, group.remaining());
      if (match != null && (best == null || match.covers.size() > best.covers.size())) {
        best = match;
      }
    }
    if (best != null) {
      group.claim(best.covers, best.plan());
    }
  }

  /** The predicates a match covers and the index ranges (full tuples, inclusive) that answer them. */
  private record Match(CompositeIndex index, List<Predicate> covers, List<List<Long>> lower, List<List<Long>> upper) {
    AccessPlan plan() {
      List<String> columns = index.columns().subList(0, covers.size());
      List<AccessPlan> ranges = new ArrayList<>();
      for (int i = 0; i < lower.size(); i++) {
        ranges.add(new AccessPlan.CompositeRange(index.name(), columns, lower.get(i), upper.get(i), covers));
      }
      return ranges.size() == 1 ? ranges.get(0) : new AccessPlan.Union(ranges);
    }
  }

  private static Match longestMatch(CompositeIndex index, List<Predicate> conjuncts) {
    List<Predicate> covers = new ArrayList<>();
    List<List<Long>> lower = new ArrayList<>();
    List<List<Long>> upper = new ArrayList<>();
    lower.add(List.of());
    upper.add(List.of());
    int columns = index.columns().size();
    for (String column : index.columns()) {
      Predicate equality = find(conjuncts, column, true);
      if (equality != null && lower.size() * valuesOf(equality).size() <= MAX_UNION) {
        List<Long> values = valuesOf(equality);
        if (values.isEmpty()) {
          return null; // no long equals it (tenant_id = 1.5): the single-column index says so cheaply
        }
        covers.add(equality);
        lower = extend(lower, values);
        upper = extend(upper, values);
        continue;
      }
      Predicate range = covers.isEmpty() ? null : find(conjuncts, column, false);
      if (range != null) {
        Predicate.Range r = MergeRanges.asRange(range);
        covers.add(range);
        lower = extend(lower,
            List.of(r.lower() == null ? Long.MIN_VALUE : Values.ceilLong(r.lower(), r.lowerInclusive())));
        upper = extend(upper,
            List.of(r.upper() == null ? Long.MAX_VALUE : Values.floorLong(r.upper(), r.upperInclusive())));
      }
      break;
    }
    if (covers.size() < 2) {
      return null;
    }
    // Columns after the match are unconstrained: the index needs a bound for each.
    for (int i = covers.size(); i < columns; i++) {
      lower = extend(lower, List.of(Long.MIN_VALUE));
      upper = extend(upper, List.of(Long.MAX_VALUE));
    }
    return new Match(index, covers, lower, upper);
  }

  /** An equality (= or IN) or a range (<, <=, >, >=, BETWEEN) on {@code column}. */
  private static Predicate find(List<Predicate> conjuncts, String column, boolean equality) {
    for (Predicate predicate : conjuncts) {
      Field field = ConjunctGroup.fieldOf(predicate);
      if (field == null || field.isAttribute() || !field.column().equals(column)) {
        continue;
      }
      boolean isEquality = (predicate instanceof Predicate.Compare c && c.op() == Op.EQ)
          || (predicate instanceof Predicate.In in && !in.negated());
      boolean isRange = predicate instanceof Predicate.Range
          || (predicate instanceof Predicate.Compare c && c.op() != Op.EQ && c.op() != Op.NE);
      if (equality ? isEquality : isRange) {
        return predicate;
      }
    }
    return null;
  }

  /** The integer values of an equality; a fractional value matches no long and is dropped. */
  private static List<Long> valuesOf(Predicate equality) {
    List<Object> values = equality instanceof Predicate.Compare c ? List.of(c.value())
        : ((Predicate.In) equality).values();
    List<Long> longs = new ArrayList<>();
    for (Object value : values) {
      long ceil = Values.ceilLong(value, true);
      if (ceil == Values.floorLong(value, true)) {
        longs.add(ceil);
      }
    }
    return longs;
  }

  private static List<List<Long>> extend(List<List<Long>> prefixes, List<Long> values) {
    List<List<Long>> extended = new ArrayList<>();
    for (List<Long> prefix : prefixes) {
      for (Long value : values) {
        List<Long> next = new ArrayList<>(prefix);
        next.add(value);
        extended.add(next);
      }
    }
    return extended;
  }
}
