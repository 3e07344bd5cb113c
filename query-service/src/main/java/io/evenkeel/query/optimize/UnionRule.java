package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.Predicate;
import java.util.ArrayList;
import java.util.List;

/** An OR becomes the union of its branches, each planned by the same rules as a WHERE clause of its own. */
final class UnionRule implements AccessRule {
  @Override
  public String name() {
    return "UnionRule";
  }

  @Override
  public void apply(ConjunctGroup group) {
    for (Predicate predicate : group.remaining()) {
      if (predicate instanceof Predicate.Or or) {
        List<AccessPlan> branches = new ArrayList<>();
        or.children().forEach(branch -> branches.add(group.plan(branch)));
        group.claim(List.of(predicate), new AccessPlan.Union(branches));
      }
    }
  }
}
