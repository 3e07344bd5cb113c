package io.evenkeel.query.optimize;

import io.evenkeel.expr.Op;
import io.evenkeel.query.normalize.Field;
import io.evenkeel.query.normalize.Predicate;
import java.util.List;

/**
 * A predicate on a scan-list column is checked in doc values over the candidates the group's other access paths
 * produce, instead of reading its own long posting lists ({@code status = 1} matches a large share of all rows). It
 * needs another path to produce the candidates: when every predicate is on scan-list columns, they use their indexes.
 */
final class DocValuesScanRule implements AccessRule {
  @Override
  public String name() {
    return "DocValuesScanRule";
  }

  @Override
  public void apply(ConjunctGroup group) {
    if (!hasCandidateSource(group)) {
      return;
    }
    for (Predicate predicate : group.remaining()) {
      if (scannable(predicate, group)) {
        group.claim(List.of(predicate), new AccessPlan.DocValuesScan(predicate));
      }
    }
  }

  private static boolean scannable(Predicate predicate, ConjunctGroup group) {
    Field field = ConjunctGroup.fieldOf(predicate);
    if (field == null || field.isAttribute() || !group.settings().scanColumns().contains(field.column())
        || !field.tableColumn().hasDocValues()) {
      return false;
    }
    return predicate instanceof Predicate.Compare || predicate instanceof Predicate.In
        || predicate instanceof Predicate.Range;
  }

  /** An access path already chosen, or a remaining positive predicate an index will answer. */
  private static boolean hasCandidateSource(ConjunctGroup group) {
    for (AccessPlan plan : group.chosen()) {
      if (!(plan instanceof AccessPlan.ServiceScan)) {
        return true;
      }
    }
    for (Predicate predicate : group.remaining()) {
      if (!scannable(predicate, group) && drivesCandidates(predicate)) {
        return true;
      }
    }
    return false;
  }

  /** Predicates that select rows by themselves; negations (!=, NOT IN, IS NULL, NOT LIKE) only remove them. */
  private static boolean drivesCandidates(Predicate predicate) {
    if (predicate instanceof Predicate.Compare compare) {
      return compare.op() != Op.NE;
    }
    if (predicate instanceof Predicate.In in) {
      return !in.negated();
    }
    if (predicate instanceof Predicate.Like like) {
      return !like.negated();
    }
    if (predicate instanceof Predicate.Match match) {
      return !match.negated();
    }
    if (predicate instanceof Predicate.IsNull isNull) {
      return isNull.negated();
    }
    return predicate instanceof Predicate.Range || predicate instanceof Predicate.Or;
  }
}
