package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.Predicate;
import java.util.List;

/** Whatever is left uses its own column's index: the inverted index for keywords and text, points for numbers. */
final class SingleColumnIndexRule implements AccessRule {
  @Override
  public String name() {
    return "SingleColumnIndexRule";
  }

  @Override
  public void apply(ConjunctGroup group) {
    for (Predicate predicate : group.remaining()) {
      if (predicate instanceof Predicate.Constant constant) {
        group.claim(List.of(predicate), new AccessPlan.Constant(constant.value()));
      } else if (predicate instanceof Predicate.Or) {
        continue; // UnionRule's
      } else {
        group.claim(List.of(predicate), new AccessPlan.IndexLookup(predicate));
      }
    }
  }
}
