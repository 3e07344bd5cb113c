package io.evenkeel.query.normalize;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A step toward conjunctive normal form: {@code (a AND b) OR (a AND c)} is {@code a AND (b OR c)}. Lifting the
 * shared conjunct lets the routing and composite-index rules see it (typically {@code tenant_id = k}); when one
 * branch is only the shared part, the OR is absorbed: {@code a OR (a AND b)} is {@code a}. Unlike a full CNF
 * conversion it never grows the tree.
 */
public final class FactorCommonConjuncts implements NormalizationRule {
  @Override
  public String name() {
    return "FactorCommonConjuncts";
  }

  @Override
  public Predicate rewrite(Predicate node) {
    if (!(node instanceof Predicate.Or or)) {
      return node;
    }
    Set<Predicate> common = null;
    for (Predicate branch : or.children()) {
      Set<Predicate> conjuncts = new LinkedHashSet<>(conjuncts(branch));
      if (common == null) {
        common = conjuncts;
      } else {
        common.retainAll(conjuncts);
      }
    }
    if (common == null || common.isEmpty()) {
      return node;
    }
    List<Predicate> rest = new ArrayList<>();
    for (Predicate branch : or.children()) {
      List<Predicate> remaining = new ArrayList<>(conjuncts(branch));
      remaining.removeAll(common);
      if (remaining.isEmpty()) {
        return common.size() == 1 ? common.iterator().next() : new Predicate.And(new ArrayList<>(common));
      }
      rest.add(remaining.size() == 1 ? remaining.get(0) : new Predicate.And(remaining));
    }
    List<Predicate> factored = new ArrayList<>(common);
    factored.add(new Predicate.Or(rest));
    return new Predicate.And(factored);
  }

  private static List<Predicate> conjuncts(Predicate predicate) {
    return predicate instanceof Predicate.And and ? and.children() : List.of(predicate);
  }
}
