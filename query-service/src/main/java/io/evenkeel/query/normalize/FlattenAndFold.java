package io.evenkeel.query.normalize;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Flattens nested AND/OR, drops duplicate children, and folds constants: (a AND TRUE) is a, (a OR TRUE) TRUE. */
public final class FlattenAndFold implements NormalizationRule {
  @Override
  public String name() {
    return "FlattenAndFold";
  }

  @Override
  public Predicate rewrite(Predicate node) {
    if (node instanceof Predicate.And and) {
      return fold(and.children(), true, node);
    }
    if (node instanceof Predicate.Or or) {
      return fold(or.children(), false, node);
    }
    return node;
  }

  /** For AND, TRUE is the identity and FALSE absorbs; for OR the other way round. */
  private static Predicate fold(List<Predicate> children, boolean isAnd, Predicate node) {
    Set<Predicate> flat = new LinkedHashSet<>();
    for (Predicate child : children) {
      if (isAnd && child instanceof Predicate.And and) {
        flat.addAll(and.children());
      } else if (!isAnd && child instanceof Predicate.Or or) {
        flat.addAll(or.children());
      } else if (child instanceof Predicate.Constant constant) {
        if (constant.value() != isAnd) {
          return constant;
        }
      } else {
        flat.add(child);
      }
    }
    if (flat.isEmpty()) {
      return new Predicate.Constant(isAnd);
    }
    if (flat.size() == 1) {
      return flat.iterator().next();
    }
    List<Predicate> list = new ArrayList<>(flat);
    if (list.equals(children)) {
      return node;
    }
    return isAnd ? new Predicate.And(list) : new Predicate.Or(list);
  }
}
