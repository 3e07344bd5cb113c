package io.evenkeel.query.optimize;

import java.util.List;
import java.util.Set;

/**
 * What the optimizer may use.
 *
 * @param compositeIndexes the shards' composite indexes, for the longest-match rule
 * @param scanColumns columns better checked in doc values over other predicates' candidates than looked up in their
 *     own index (few distinct values, so each value's posting list is long: {@code status})
 * @param hotAttributes attribute keys the shards index as fields ({@code attr.<key>}); filters on other keys are
 *     answered by scanning the candidate rows' stored attributes
 * @param rules the access-path rules, in order ({@link OptimizerRules#DEFAULT}, or {@link OptimizerRules#PLAIN} for
 *     single-column indexes only)
 * @param conditionsOnShards whether a condition no index answers is sent to the shards, which test it on their
 *     candidate rows (the default), or left to the service, which then reads every candidate row (a benchmark's
 *     baseline)
 */
public record OptimizerSettings(List<CompositeIndex> compositeIndexes, Set<String> scanColumns,
    Set<String> hotAttributes, List<AccessRule> rules, boolean conditionsOnShards) {
  public OptimizerSettings {
    compositeIndexes = List.copyOf(compositeIndexes);
    scanColumns = Set.copyOf(scanColumns);
    hotAttributes = Set.copyOf(hotAttributes);
    rules = List.copyOf(rules);
  }

  /** The shards' layout: the tenant_created composite index, status scanned, no hot attributes. */
  public static OptimizerSettings defaults() {
    return new OptimizerSettings(List.of(CompositeIndex.TENANT_CREATED), Set.of("status"), Set.of(),
        OptimizerRules.DEFAULT, true);
  }

  public OptimizerSettings withRules(List<AccessRule> newRules) {
    return new OptimizerSettings(compositeIndexes, scanColumns, hotAttributes, newRules, conditionsOnShards);
  }

  public OptimizerSettings withScanColumns(Set<String> columns) {
    return new OptimizerSettings(compositeIndexes, columns, hotAttributes, rules, conditionsOnShards);
  }

  public OptimizerSettings withHotAttributes(Set<String> keys) {
    return new OptimizerSettings(compositeIndexes, scanColumns, keys, rules, conditionsOnShards);
  }

  public OptimizerSettings withConditionsOnShards(boolean onShards) {
    return new OptimizerSettings(compositeIndexes, scanColumns, hotAttributes, rules, onShards);
  }
}
