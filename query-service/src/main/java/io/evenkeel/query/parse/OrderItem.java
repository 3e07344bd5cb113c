package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;

/** One ORDER BY key (aliases and ordinals already resolved to their select expressions). */
public record OrderItem(Expr expr, boolean descending) {
  @Override
  public String toString() {
    return expr + (descending ? " DESC" : " ASC");
  }
}
