package io.evenkeel.expr;

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
  /** {@code a <=> b}: equal, or both NULL; never NULL itself. */
  NULL_SAFE_EQ(2, "<=>"),
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
  /** Seconds since the epoch to a date-time in the session time zone. */
  FROM_UNIXTIME(1, "FROM_UNIXTIME"),
  /** A date-time (or epoch seconds through FROM_UNIXTIME) formatted with MySQL's % specifiers. */
  DATE_FORMAT(2, "DATE_FORMAT"),
  /** when, then, when, then, ..., else (NULL when the statement has none): the first TRUE when's then. */
  CASE(-1, "CASE"),
  /** condition, then, else. */
  IF(3, "IF"),
  NULLIF(2, "NULLIF"),
  GREATEST(-1, "GREATEST"),
  LEAST(-1, "LEAST"),
  /** The remainder, with the dividend's sign; NULL for a zero divisor ({@code %} and {@code MOD}). */
  MOD(2, "%"),
  /** The integer part of the quotient (toward zero), BIGINT; NULL for a zero divisor ({@code DIV}). */
  DIV(2, "DIV"),
  /** A power, as MySQL's DOUBLE: the nearest decimal of the double's shortest text. */
  POW(2, "POW"),
  SQRT(1, "SQRT"),
  CAST_SIGNED(1, "SIGNED"),
  CAST_UNSIGNED(1, "UNSIGNED"),
  /** value, precision, scale. */
  CAST_DECIMAL(3, "DECIMAL"),
  /** value, the length in characters (NULL for none). */
  CAST_CHAR(2, "CHAR"),
  /** value, the fractional-second digits (0 to 6): a DATETIME. */
  CAST_DATETIME(2, "DATETIME"),
  /**
   * value, the digits after the point it shows at least: a decimal result of CASE, IF, IFNULL, COALESCE, GREATEST or
   * LEAST, which MySQL shows with the most digits of any of its results ({@link ResultTypes}).
   */
  SHOWN_SCALE(2, "SHOWN_SCALE"),
  ABS(1, "ABS"),
  SIGN(1, "SIGN"),
  FLOOR(1, "FLOOR"),
  CEIL(1, "CEIL"),
  /** value, digits after the point (negative: before it); halves away from zero. */
  ROUND(2, "ROUND"),
  /** value, digits after the point (negative: before it); toward zero. */
  TRUNCATE(2, "TRUNCATE"),
  LOWER(1, "LOWER"),
  UPPER(1, "UPPER"),
  /** Bytes of the UTF-8 text. */
  LENGTH(1, "LENGTH"),
  /** Characters (code points) of the text. */
  CHAR_LENGTH(1, "CHAR_LENGTH"),
  CONCAT(-1, "CONCAT"),
  /** separator, then the values; NULL values are skipped. */
  CONCAT_WS(-1, "CONCAT_WS"),
  /** text, position (from 1; negative counts from the end), and optionally a length, in characters. */
  SUBSTRING(-1, "SUBSTRING"),
  LEFT(2, "LEFT"),
  RIGHT(2, "RIGHT"),
  /** 'BOTH', 'LEADING' or 'TRAILING', the string removed (repeatedly), the text. */
  TRIM(3, "TRIM"),
  /** text, the string to replace, its replacement. */
  REPLACE(3, "REPLACE"),
  /** substring, text, and optionally the position to start at: the 1-based position of the substring, 0 if absent. */
  LOCATE(-1, "LOCATE"),
  /** text, length, padding. */
  LPAD(3, "LPAD"),
  RPAD(3, "RPAD"),
  /** The date of a DATE, DATETIME or date string ({@code DATE(x)}, {@code CAST(x AS DATE)}). */
  DATE(1, "DATE"),
  /** The part's name (YEAR, MONTH, DAYOFWEEK, HOUR, ...: {@link DateFunctions.Part}), then the date. */
  DATE_PART(2, "DATE_PART"),
  /** Epoch seconds of a date, or of now without an argument. */
  UNIX_TIMESTAMP(-1, "UNIX_TIMESTAMP"),
  /** date, amount, the unit's name ({@link DateFunctions.Unit}); DATE_SUB negates the amount. */
  DATE_ADD(3, "DATE_ADD"),
  DATEDIFF(2, "DATEDIFF"),
  /** amount, unit: {@code INTERVAL n unit}, only as DATE_ADD's and DATE_SUB's argument. */
  INTERVAL(2, "INTERVAL");

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
      case AND, OR, NOT, EQ, NE, LT, LE, GT, GE, NULL_SAFE_EQ, BETWEEN, IN, IS_NULL, IS_NOT_NULL, LIKE, MATCH -> true;
      default -> false;
    };
  }

  String render(List<String> args) {
    return switch (this) {
      case AND, OR -> "(" + String.join(" " + symbol + " ", args) + ")";
      case NOT -> "NOT " + args.get(0);
      case EQ, NE, LT, LE, GT, GE, NULL_SAFE_EQ, LIKE, PLUS, MINUS, TIMES, DIVIDE ->
          "(" + args.get(0) + " " + symbol + " " + args.get(1) + ")";
      case BETWEEN -> "(" + args.get(0) + " BETWEEN " + args.get(1) + " AND " + args.get(2) + ")";
      case IN -> "(" + args.get(0) + " IN (" + String.join(", ", args.subList(1, args.size())) + "))";
      case IS_NULL, IS_NOT_NULL -> "(" + args.get(0) + " " + symbol + ")";
      case MATCH -> "MATCH(" + args.get(0) + ") AGAINST(" + args.get(1) + ")";
      case NEGATE -> "-" + args.get(0);
      case MOD -> "(" + args.get(0) + " % " + args.get(1) + ")";
      case DIV -> "(" + args.get(0) + " DIV " + args.get(1) + ")";
      case CAST_DATETIME -> "CAST(" + args.get(0) + " AS DATETIME(" + args.get(1) + "))";
      case SHOWN_SCALE -> args.get(0);
      case CASE -> {
        StringBuilder text = new StringBuilder("CASE");
        for (int i = 0; i + 1 < args.size(); i += 2) {
          text.append(" WHEN ").append(args.get(i)).append(" THEN ").append(args.get(i + 1));
        }
        yield text.append(" ELSE ").append(args.get(args.size() - 1)).append(" END").toString();
      }
      case CAST_SIGNED, CAST_UNSIGNED -> "CAST(" + args.get(0) + " AS " + symbol + ")";
      case CAST_DECIMAL -> "CAST(" + args.get(0) + " AS DECIMAL(" + args.get(1) + ", " + args.get(2) + "))";
      case CAST_CHAR -> "CAST(" + args.get(0) + " AS CHAR" + ("NULL".equals(args.get(1)) ? "" : "(" + args.get(1)
          + ")") + ")";
      case DATE_PART -> args.get(0).replace("'", "") + "(" + args.get(1) + ")";
      case DATE_ADD -> "DATE_ADD(" + args.get(0) + ", INTERVAL " + args.get(1) + " " + args.get(2).replace("'", "")
          + ")";
      case INTERVAL -> "INTERVAL " + args.get(0) + " " + args.get(1).replace("'", "");
      case TRIM -> "TRIM(" + args.get(0).replace("'", "") + " " + args.get(1) + " FROM " + args.get(2) + ")";
      case IFNULL, COALESCE, FROM_UNIXTIME, DATE_FORMAT, IF, NULLIF, GREATEST, LEAST, ABS, SIGN, FLOOR, CEIL, ROUND,
          TRUNCATE, LOWER, UPPER, LENGTH, CHAR_LENGTH, CONCAT, CONCAT_WS, SUBSTRING, LEFT, RIGHT, REPLACE, LOCATE, LPAD,
          RPAD, DATE, UNIX_TIMESTAMP, DATEDIFF, POW, SQRT -> symbol + "(" + String.join(", ", args) + ")";
    };
  }
}
