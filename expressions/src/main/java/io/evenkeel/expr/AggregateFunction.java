package io.evenkeel.expr;

/** The aggregate functions of the SQL dialect. */
public enum AggregateFunction {
  COUNT, SUM, AVG, MIN, MAX
}
