package io.evenkeel.query.expr;

import java.util.List;

/** Operators and scalar functions; {@link #arity()} -1 means any number of arguments. */
public enum Op {
  AND(-1, "AND"),
  OR(-1, "OR"),
  NOT(1, "NOT"),
  EQ(2, "="),
  NE(2, "!="),
  LT(2, "<"),
  LE(2, "<="),
  GT(2, ">"),
  GE(2, ">="),
  /** value, lower, upper. */
  BETWEEN(3, "BETWEEN"),
  /** value, then the list. */
  IN(-1, "IN"),
  IS_NULL(1, "IS NULL"),
  IS_NOT_NULL(1, "IS NOT NULL"),
  /** value, pattern: % any run, _ one character, \ escapes. */
  LIKE(2, "LIKE"),
  /** column, query text: the row's text shares at least one word with the query under the column's analyzer. */
  MATCH(2, "MATCH"),
  PLUS(2, "+"),
  MINUS(2, "-"),
  TIMES(2, "*"),
  DIVIDE(2, "/"),
  NEGATE(1, "-"),
  IFNULL(2, "IFNULL"),
  COALESCE(-1, "COALESCE"),
  /** Seconds since the epoch to a UTC date-time. */
  FROM_UNIXTIME(1, "FROM_UNIXTIME"),
  /** A UTC date-time (or epoch seconds through FROM_UNIXTIME) formatted with MySQL's % specifiers. */
  DATE_FORMAT(2, "DATE_FORMAT");

  private final int arity;
  private final String symbol;

  Op(int arity, String symbol) {
    this.arity = arity;
    this.symbol = symbol;
  }

  public int arity() {
    return arity;
  }

  /** Whether the result is a truth value (TRUE, FALSE or UNKNOWN). */
  public boolean isPredicate() {
    return switch (this) {
      case AND, OR, NOT, EQ, NE, LT, LE, GT, GE, BETWEEN, IN, IS_NULL, IS_NOT_NULL, LIKE, MATCH -> true;
      default -> false;
    };
  }

  String render(List<String> args) {
    return switch (this) {
      case AND, OR -> "(" + String.join(" " + symbol + " ", args) + ")";
      case NOT -> "NOT " + args.get(0);
      case EQ, NE, LT, LE, GT, GE, LIKE, PLUS, MINUS, TIMES, DIVIDE ->
          "(" + args.get(0) + " " + symbol + " " + args.get(1) + ")";
      case BETWEEN -> "(" + args.get(0) + " BETWEEN " + args.get(1) + " AND " + args.get(2) + ")";
      case IN -> "(" + args.get(0) + " IN (" + String.join(", ", args.subList(1, args.size())) + "))";
      case IS_NULL, IS_NOT_NULL -> "(" + args.get(0) + " " + symbol + ")";
      case MATCH -> "MATCH(" + args.get(0) + ") AGAINST(" + args.get(1) + ")";
      case NEGATE -> "-" + args.get(0);
      case IFNULL, COALESCE, FROM_UNIXTIME, DATE_FORMAT -> symbol + "(" + String.join(", ", args) + ")";
    };
  }
}
