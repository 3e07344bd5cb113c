package io.evenkeel.query.normalize;

import io.evenkeel.expr.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code c = 1 OR c = 2 OR c IN (3)} is {@code c IN (1, 2, 3)}: one terms lookup instead of a union of three. The
 * dual, {@code c != 1 AND c NOT IN (2)}, is {@code c NOT IN (1, 2)}.
 */
public final class MergeEqualsIntoIn implements NormalizationRule {
  @Override
  public String name() {
    return "MergeEqualsIntoIn";
  }

  @Override
  public Predicate rewrite(Predicate node) {
    if (node instanceof Predicate.Or or) {
      List<Predicate> merged = merge(or.children(), false);
      return merged == null ? node : new Predicate.Or(merged);
    }
    if (node instanceof Predicate.And and) {
      List<Predicate> merged = merge(and.children(), true);
      return merged == null ? node : new Predicate.And(merged);
    }
    return node;
  }

  /** The children with each field's (in)equalities merged into one IN, or null when no field has two. */
  private static List<Predicate> merge(List<Predicate> children, boolean negated) {
    Map<Field, List<Object>> values = new LinkedHashMap<>();
    Map<Field, Integer> counts = new LinkedHashMap<>();
    for (Predicate child : children) {
      Field field = fieldOf(child, negated);
      if (field != null) {
        values.computeIfAbsent(field, f -> new ArrayList<>()).addAll(valuesOf(child));
        counts.merge(field, 1, Integer::sum);
      }
    }
    if (counts.values().stream().noneMatch(count -> count > 1)) {
      return null;
    }
    List<Predicate> result = new ArrayList<>();
    for (Predicate child : children) {
      Field field = fieldOf(child, negated);
      if (field == null || counts.get(field) == 1) {
        result.add(child);
      } else if (values.containsKey(field)) {
        result.add(new Predicate.In(field, Values.sortedDistinct(values.remove(field)), negated));
      }
    }
    return result;
  }

  private static Field fieldOf(Predicate child, boolean negated) {
    if (child instanceof Predicate.Compare compare && compare.op() == (negated ? Op.NE : Op.EQ)) {
      return compare.field();
    }
    if (child instanceof Predicate.In in && in.negated() == negated) {
      return in.field();
    }
    return null;
  }

  private static List<Object> valuesOf(Predicate child) {
    return child instanceof Predicate.Compare compare ? List.of(compare.value()) : ((Predicate.In) child).values();
  }
}
