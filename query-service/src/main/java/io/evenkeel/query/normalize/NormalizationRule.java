package io.evenkeel.query.normalize;

/**
 * One rewrite of a predicate node into an equivalent, simpler one. {@link #rewrite} returns the node itself when the
 * rule does not apply; the {@link Normalizer} applies every rule bottom-up until none changes anything.
 */
public interface NormalizationRule {
  String name();

  Predicate rewrite(Predicate node);
}
