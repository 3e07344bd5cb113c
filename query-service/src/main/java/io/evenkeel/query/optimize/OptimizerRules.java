package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.FactorCommonConjuncts;
import io.evenkeel.query.normalize.FlattenAndFold;
import io.evenkeel.query.normalize.MergeEqualsIntoIn;
import io.evenkeel.query.normalize.MergeRanges;
import io.evenkeel.query.normalize.NormalizationRule;
import java.util.List;

/** Every optimizer rule, registered here and applied in this order (the normalization rules are in normalize). */
public final class OptimizerRules {
  /** Normalization: simplify, merge same-field predicates, lift shared conjuncts. */
  public static final List<NormalizationRule> NORMALIZATION = List.of(
      new FlattenAndFold(),
      new MergeEqualsIntoIn(),
      new MergeRanges(),
      new FactorCommonConjuncts());

  /** ESDB's rule-based access-path choice: composite index, then doc-values scans, then single-column indexes. */
  public static final List<AccessRule> DEFAULT = List.of(
      new ServiceScanRule(),
      new CompositeIndexRule(),
      new UnionRule(),
      new DocValuesScanRule(),
      new SingleColumnIndexRule());

  /** The optimizer switched off: every predicate on its own single-column index (the benchmark's baseline). */
  public static final List<AccessRule> PLAIN = List.of(
      new ServiceScanRule(),
      new UnionRule(),
      new SingleColumnIndexRule());

  private OptimizerRules() {}
}
