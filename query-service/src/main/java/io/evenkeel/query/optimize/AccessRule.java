package io.evenkeel.query.optimize;

/**
 * One access-path rule: it claims the predicates of an AND group it can answer and adds the access path it chooses.
 * Rules run in the order {@link OptimizerRules} lists them; what none claims is an error.
 */
public interface AccessRule {
  String name();

  void apply(ConjunctGroup group);
}
