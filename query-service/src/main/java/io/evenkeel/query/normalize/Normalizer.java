package io.evenkeel.query.normalize;

import java.util.ArrayList;
import java.util.List;

/** Applies the normalization rules bottom-up until no rule changes the tree. */
public final class Normalizer {
  /** Each pass shrinks or merges the tree; a handful suffices, the bound only guards against a rule bug. */
  private static final int MAX_PASSES = 32;

  private final List<NormalizationRule> rules;

  public Normalizer(List<NormalizationRule> rules) {
    this.rules = List.copyOf(rules);
  }

  public Predicate normalize(Predicate predicate) {
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      Predicate next = pass(predicate);
      if (next.equals(predicate)) {
        return next;
      }
      predicate = next;
    }
    throw new IllegalStateException("normalization did not converge after " + MAX_PASSES + " passes: " + predicate);
  }

  private Predicate pass(Predicate node) {
    if (node instanceof Predicate.And and) {
      node = new Predicate.And(children(and.children()));
    } else if (node instanceof Predicate.Or or) {
      node = new Predicate.Or(children(or.children()));
    }
    for (NormalizationRule rule : rules) {
      node = rule.rewrite(node);
    }
    return node;
  }

  private List<Predicate> children(List<Predicate> children) {
    List<Predicate> result = new ArrayList<>(children.size());
    children.forEach(child -> result.add(pass(child)));
    return result;
  }
}
