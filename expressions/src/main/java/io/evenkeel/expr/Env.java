package io.evenkeel.expr;

/** What an expression reads: one row's columns and attributes, or one group's aggregates. */
public interface Env {
  /** The value of a column, null for NULL. */
  Object column(String name);

  /** The value of a column the expression names; an environment that stores columns by position reads it there. */
  default Object column(Expr.Column column) {
    return column(column.name());
  }

  /** {@code attr('key')}: null when the row has no such key. */
  Object attr(String key);

  /** The value of an aggregate over the current group. */
  default Object aggregate(Expr.Aggregate aggregate) {
    throw new IllegalStateException("aggregate " + aggregate + " evaluated outside a group");
  }
}
