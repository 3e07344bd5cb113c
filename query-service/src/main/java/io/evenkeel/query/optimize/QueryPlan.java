package io.evenkeel.query.optimize;

import io.evenkeel.expr.Expr;
import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.List;

/**
 * What the optimizer decided for one statement: the normalized WHERE, the access paths, the shard filter, and how
 * rows reach the service.
 *
 * @param where the WHERE clause in negation normal form, after the normalization rules
 * @param serviceFilter whether the service must evaluate the WHERE on fetched rows (some part is a service scan)
 * @param sort the shards' sort, for {@link Mode#TWO_PHASE}
 * @param hitsPerShard for {@link Mode#TWO_PHASE}, offset + limit
 * @param orderedByComposite for {@link Mode#TWO_PHASE}, whether the composite range of the access plan (one tenant)
 *     gives the order of the first sort key, so that the shards read it from the sort's end and stop at the page
 * @param hitColumns for {@link Mode#TWO_PHASE}, the columns the select list reads when doc values hold them all: the
 *     shards return them with the hits, which are then the rows (no fetch); empty otherwise
 * @param aggregates every distinct aggregate of the statement, in first-use order
 * @param shardAggregations for {@link Mode#AGGREGATE_ON_SHARDS}, one per aggregate
 * @param shardGroupBy for {@link Mode#AGGREGATE_ON_SHARDS}, the group keys: columns with doc values, or expressions
 *     the shards evaluate on each row
 * @param conditionsOnShards whether the shards test the conditions no index answers and compute the expressions
 *     of GROUP BY and aggregates; otherwise the service does, on the candidate rows
 */
public record QueryPlan(
    SelectStatement statement,
    Predicate where,
    AccessPlan access,
    Filter filter,
    boolean serviceFilter,
    Mode mode,
    List<SortField> sort,
    int hitsPerShard,
    boolean orderedByComposite,
    List<String> hitColumns,
    List<Expr.Aggregate> aggregates,
    List<Aggregation> shardAggregations,
    List<Expr> shardGroupBy,
    boolean conditionsOnShards) {

  /** How rows reach the service. */
  public enum Mode {
    /** Shards return the ids and sort keys of their top offset + limit hits; the service merges, then fetches rows. */
    TWO_PHASE,
    /** Shards return every candidate row; the service filters, sorts and slices (a service scan, no LIMIT, or an
     * ORDER BY the shards cannot sort by). */
    ROWS,
    /** Shards aggregate per group; the service merges the partial aggregates exactly. */
    AGGREGATE_ON_SHARDS,
    /** Shards return every candidate row; the service groups and aggregates them. */
    AGGREGATE_ROWS
  }

  public QueryPlan {
    aggregates = List.copyOf(aggregates);
    shardAggregations = List.copyOf(shardAggregations);
    shardGroupBy = List.copyOf(shardGroupBy);
    sort = List.copyOf(sort);
    hitColumns = List.copyOf(hitColumns);
  }

  /**
   * The group keys of {@link Mode#AGGREGATE_ON_SHARDS} as the shards' {@code group_by} columns when they are all
   * columns with doc values; null when some is an expression, sent as {@code group_by_expressions}.
   */
  public List<String> shardGroupByColumns() {
    List<String> columns = new ArrayList<>();
    for (Expr key : shardGroupBy) {
      if (!(key instanceof Expr.Column column && TransactionLogsTable.require(column.name()).hasDocValues())) {
        return null;
      }
      columns.add(column.name());
    }
    return columns;
  }

  /**
   * Whether a {@link Mode#TWO_PHASE} query on {@code shards} shards asks for the rows with the hits: on one shard its
   * top hits are the page, so reading their rows there saves the second round trip (on several, each would read
   * rows the merge then drops).
   */
  public boolean rowsInHits(int shards) {
    return mode == Mode.TWO_PHASE && hitColumns.isEmpty() && shards == 1;
  }
}
