package io.evenkeel.query.expr;

/** The aggregate functions of the SQL dialect. */
public enum AggregateFunction {
  COUNT, SUM, AVG, MIN, MAX
}
