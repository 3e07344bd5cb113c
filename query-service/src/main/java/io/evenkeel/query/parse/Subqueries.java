package io.evenkeel.query.parse;

import io.evenkeel.query.result.QueryException;
import java.util.List;

/**
 * Runs the uncorrelated subqueries of a statement while it is parsed ({@code x IN (SELECT ...)}, a scalar {@code
 * (SELECT AVG(...) ...)}, {@code EXISTS (SELECT ...)}): their answers become literal values of the statement, which
 * is then planned, pushed to the shards and routed like any other. The query service runs them under the
 * statement's own key, deadline and limits.
 */
@FunctionalInterface
public interface Subqueries {
  /** Where nothing can run a subquery (parsing alone): any subquery is a 400. */
  Subqueries NONE = inner -> {
    throw QueryException.unsupported("a subquery outside the query service");
  };

  /** The output rows of {@code inner}, as an answer holds them. */
  List<List<Object>> rows(Statement inner);
}
