package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.Predicate;
import java.util.List;

/**
 * How the shards find a WHERE clause's rows: the access paths the optimizer chose, as a tree the {@link
 * FilterCompiler} turns into the shard query and {@link PlanPrinter} into EXPLAIN text.
 */
public sealed interface AccessPlan {
  /** Every part holds: the index-driven parts produce candidates, doc-values scans check them. */
  record Conjunction(List<AccessPlan> parts) implements AccessPlan {
    public Conjunction {
      parts = List.copyOf(parts);
    }
  }

  /** Any branch holds: the union of each branch's rows. */
  record Union(List<AccessPlan> branches) implements AccessPlan {
    public Union {
      branches = List.copyOf(branches);
    }
  }

  /**
   * A range over a composite index: {@code columns} equal their bounds except the last, which lies in [lower,
   * upper] (inclusive; longs).
   */
  record CompositeRange(String index, List<String> columns, List<Long> lower, List<Long> upper,
      List<Predicate> covers) implements AccessPlan {
    public CompositeRange {
      columns = List.copyOf(columns);
      lower = List.copyOf(lower);
      upper = List.copyOf(upper);
      covers = List.copyOf(covers);
    }
  }

  /** One predicate answered by its column's inverted index or points. */
  record IndexLookup(Predicate leaf) implements AccessPlan {}

  /** One predicate checked against doc values, row by row, over the candidates of the other parts. */
  record DocValuesScan(Predicate leaf) implements AccessPlan {}

  /** A condition no shard index answers: the service evaluates it on the fetched rows. */
  record ServiceScan(Predicate condition) implements AccessPlan {}

  /** Every row (no WHERE), or none (a contradiction). */
  record Constant(boolean all) implements AccessPlan {}
}
