package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.Predicate;
import java.util.List;

/**
 * Predicates the shards cannot answer (expressions, cold attribute keys, an OR with such a branch) are left to the
 * service: it fetches the candidate rows the other predicates select and evaluates the whole WHERE on them.
 */
final class ServiceScanRule implements AccessRule {
  @Override
  public String name() {
    return "ServiceScanRule";
  }

  @Override
  public void apply(ConjunctGroup group) {
    for (Predicate predicate : group.remaining()) {
      if (!group.pushable(predicate)) {
        group.claim(List.of(predicate), new AccessPlan.ServiceScan(predicate));
      }
    }
  }
}
