package io.evenkeel.query.normalize;

import io.evenkeel.expr.Op;
import io.evenkeel.expr.SqlValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ANDed bounds on one field become one range: {@code t >= 5 AND t < 9 AND t <= 7} is {@code t >= 5 AND t <= 7}, one
 * points query (and the form the composite index rule matches). Contradictory bounds make the AND FALSE.
 */
public final class MergeRanges implements NormalizationRule {
  @Override
  public String name() {
    return "MergeRanges";
  }

  @Override
  public Predicate rewrite(Predicate node) {
    if (!(node instanceof Predicate.And and)) {
      return node;
    }
    Map<Field, Predicate.Range> ranges = new LinkedHashMap<>();
    Map<Field, Integer> counts = new LinkedHashMap<>();
    for (Predicate child : and.children()) {
      Predicate.Range range = asRange(child);
      if (range != null) {
        ranges.merge(range.field(), range, MergeRanges::intersect);
        counts.merge(range.field(), 1, Integer::sum);
      }
    }
    if (counts.values().stream().noneMatch(count -> count > 1)) {
      return node;
    }
    List<Predicate> children = new ArrayList<>();
    for (Predicate child : and.children()) {
      Predicate.Range range = asRange(child);
      if (range == null || counts.get(range.field()) == 1) {
        children.add(child);
      } else if (ranges.containsKey(range.field())) {
        Predicate.Range merged = ranges.remove(range.field());
        children.add(isEmpty(merged) ? Predicate.Constant.FALSE : simplest(merged));
      }
    }
    return new Predicate.And(children);
  }

  /** A range or a one-sided comparison as a range; null for any other predicate. */
  public static Predicate.Range asRange(Predicate predicate) {
    if (predicate instanceof Predicate.Range range) {
      return range;
    }
    if (predicate instanceof Predicate.Compare compare) {
      Field f = compare.field();
      Object v = compare.value();
      return switch (compare.op()) {
        case LT -> new Predicate.Range(f, null, false, v, false);
        case LE -> new Predicate.Range(f, null, false, v, true);
        case GT -> new Predicate.Range(f, v, false, null, false);
        case GE -> new Predicate.Range(f, v, true, null, false);
        default -> null;
      };
    }
    return null;
  }

  private static Predicate.Range intersect(Predicate.Range a, Predicate.Range b) {
    Object lower = a.lower();
    boolean lowerInclusive = a.lowerInclusive();
    if (b.lower() != null) {
      int sign = lower == null ? -1 : SqlValues.compare(lower, b.lower());
      if (sign < 0 || (sign == 0 && !b.lowerInclusive())) {
        lower = b.lower();
        lowerInclusive = b.lowerInclusive();
      }
    }
    Object upper = a.upper();
    boolean upperInclusive = a.upperInclusive();
    if (b.upper() != null) {
      int sign = upper == null ? 1 : SqlValues.compare(upper, b.upper());
      if (sign > 0 || (sign == 0 && !b.upperInclusive())) {
        upper = b.upper();
        upperInclusive = b.upperInclusive();
      }
    }
    return new Predicate.Range(a.field(), lower, lowerInclusive, upper, upperInclusive);
  }

  private static boolean isEmpty(Predicate.Range range) {
    if (range.lower() == null || range.upper() == null) {
      return false;
    }
    int sign = SqlValues.compare(range.lower(), range.upper());
    return sign > 0 || (sign == 0 && !(range.lowerInclusive() && range.upperInclusive()));
  }

  /** A one-sided range reads better as the comparison it is. */
  private static Predicate simplest(Predicate.Range range) {
    if (range.upper() == null) {
      return new Predicate.Compare(range.field(), range.lowerInclusive() ? Op.GE : Op.GT, range.lower());
    }
    if (range.lower() == null) {
      return new Predicate.Compare(range.field(), range.upperInclusive() ? Op.LE : Op.LT, range.upper());
    }
    return range;
  }
}
