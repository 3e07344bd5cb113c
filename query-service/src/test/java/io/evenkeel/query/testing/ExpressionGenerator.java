package io.evenkeel.query.testing;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Random scalar expressions over {@code transaction_logs}, typed so that every argument gets a value of the kind its
 * function takes, nested up to a given depth, with a NULL (a literal, or a nullable column) possible in every
 * argument position. The same text is valid in the service's dialect and in MariaDB's. What MySQL computes in a way
 * the dialect does not follow is left out: floating-point functions inside other arithmetic, and BIGINT overflow
 * (only small integers meet in arithmetic).
 */
public final class ExpressionGenerator {
  /** The kinds of value an expression gives. */
  public enum Kind { INTEGER, DECIMAL, TEXT, DATETIME, TRUTH }

  private static final List<String> INTEGER_COLUMNS = List.of("status", "quantity", "group_id", "buyer_id");
  private static final List<String> TEXT_COLUMNS = List.of("seller_nick", "buyer_nick", "title");
  private static final List<String> TEXT_LITERALS = List.of("'ann'", "'Cat'", "''", "' x '", "'wool'", "'o'", "'-'",
      "'éva'");
  private static final List<String> DATETIMES = List.of("FROM_UNIXTIME(created_time / 1000)",
      "FROM_UNIXTIME(modified_time / 1000)");
  private static final List<String> DATE_STRINGS = List.of("'2023-11-18'", "'2023-11-20 12:00:00'",
      "'2023-12-01'");

  private final Random random;
  /** How often each function was generated, by name. */
  private final Map<String, Integer> functions = new TreeMap<>();

  public ExpressionGenerator(Random random) {
    this.random = random;
  }

  /** The functions and operators generated so far, with their counts. */
  public Map<String, Integer> functions() {
    return functions;
  }

  /** An expression of {@code kind} at most {@code depth} calls deep. */
  public String next(Kind kind, int depth) {
    return expr(kind, depth);
  }

  private String expr(Kind kind, int depth) {
    if (depth == 0 || random.nextInt(4) == 0) {
      return leaf(kind);
    }
    int d = depth - 1;
    return switch (kind) {
      case INTEGER -> integer(d);
      case DECIMAL -> decimal(d);
      case TEXT -> text(d);
      case DATETIME -> dateTime(d);
      case TRUTH -> truth(d);
    };
  }

  private String leaf(Kind kind) {
    if (random.nextInt(6) == 0) {
      return "NULL";
    }
    return switch (kind) {
      case INTEGER -> random.nextBoolean() ? pick(INTEGER_COLUMNS) : Integer.toString(random.nextInt(7) - 2);
      case DECIMAL -> random.nextBoolean() ? "price" : pick(List.of("1.5", "0.25", "-3.10", "100.00"));
      case TEXT -> random.nextInt(3) != 0 ? pick(TEXT_COLUMNS) : pick(TEXT_LITERALS);
      case DATETIME -> pick(DATETIMES);
      case TRUTH -> pick(List.of("status IS NULL", "price > 50", "seller_nick = 'ann'", "quantity < 4", "TRUE",
          "FALSE"));
    };
  }

  private String integer(int d) {
    return switch (random.nextInt(20)) {
      case 0 -> call("+", "(" + expr(Kind.INTEGER, d) + " + " + expr(Kind.INTEGER, d) + ")");
      case 1 -> call("-", "(" + expr(Kind.INTEGER, d) + " - " + expr(Kind.INTEGER, d) + ")");
      case 2 -> call("*", "(" + expr(Kind.INTEGER, d) + " * " + expr(Kind.INTEGER, d) + ")");
      case 3 -> call("DIV", "(" + expr(Kind.INTEGER, d) + " DIV " + expr(Kind.INTEGER, d) + ")");
      case 4 -> call("%", "(" + expr(Kind.INTEGER, d) + " % " + expr(Kind.INTEGER, d) + ")");
      case 5 -> fn("ABS", expr(Kind.INTEGER, d));
      case 6 -> fn(pick(List.of("FLOOR", "CEIL", "SIGN")), expr(Kind.DECIMAL, d));
      case 7 -> fn(pick(List.of("CHAR_LENGTH", "LENGTH")), expr(Kind.TEXT, d));
      case 8 -> fn("LOCATE", expr(Kind.TEXT, d), expr(Kind.TEXT, d));
      case 9 -> fn(pick(List.of("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DAYOFWEEK")), expr(Kind.DATETIME, d));
      case 10 -> fn("DATEDIFF", expr(Kind.DATETIME, d), expr(Kind.DATETIME, d));
      case 11 -> cast(expr(Kind.DECIMAL, d), "SIGNED");
      case 12 -> cast(expr(Kind.TEXT, d), "SIGNED");
      default -> common(Kind.INTEGER, d);
    };
  }

  private String decimal(int d) {
    return switch (random.nextInt(14)) {
      case 0 -> call("+", "(" + expr(Kind.DECIMAL, d) + " + " + expr(Kind.DECIMAL, d) + ")");
      case 1 -> call("-", "(" + expr(Kind.DECIMAL, d) + " - " + expr(Kind.INTEGER, d) + ")");
      case 2 -> call("*", "(" + expr(Kind.DECIMAL, d) + " * " + expr(Kind.INTEGER, d) + ")");
      case 3 -> fn("ROUND", expr(Kind.DECIMAL, d), Integer.toString(random.nextInt(3)));
      case 4 -> fn("TRUNCATE", expr(Kind.DECIMAL, d), Integer.toString(random.nextInt(3)));
      case 5 -> fn("ABS", expr(Kind.DECIMAL, d));
      case 6 -> cast(expr(Kind.INTEGER, d), "DECIMAL(10, 2)");
      case 7, 8 -> call("/", "(" + expr(pick(List.of(Kind.INTEGER, Kind.DECIMAL)), d) + " / "
          + expr(Kind.INTEGER, d) + ")");
      default -> common(Kind.DECIMAL, d);
    };
  }

  private String text(int d) {
    return switch (random.nextInt(16)) {
      case 0 -> fn(pick(List.of("LOWER", "UPPER", "TRIM", "LTRIM", "RTRIM")), expr(Kind.TEXT, d));
      case 1 -> fn("CONCAT", expr(Kind.TEXT, d), expr(Kind.TEXT, d));
      case 2 -> fn("CONCAT_WS", pick(List.of("'-'", "NULL", "seller_nick")), expr(Kind.TEXT, d), expr(Kind.TEXT, d));
      case 3 -> fn("SUBSTRING", expr(Kind.TEXT, d), expr(Kind.INTEGER, d), expr(Kind.INTEGER, d));
      case 4 -> fn(pick(List.of("LEFT", "RIGHT")), expr(Kind.TEXT, d), expr(Kind.INTEGER, d));
      case 5 -> fn("REPLACE", expr(Kind.TEXT, d), pick(List.of("'o'", "''", "'a'", "NULL")), expr(Kind.TEXT, d));
      case 6 -> fn(pick(List.of("LPAD", "RPAD")), expr(Kind.TEXT, d), Integer.toString(random.nextInt(9)),
          pick(List.of("'*'", "'ab'", "''", "NULL", "seller_nick")));
      case 7 -> cast(expr(Kind.INTEGER, d), "CHAR");
      case 8 -> cast(expr(Kind.DECIMAL, d), "CHAR");
      case 9 -> fn("DATE_FORMAT", expr(Kind.DATETIME, d), pick(List.of("'%Y-%m-%d'", "'%H:%i'", "'%a %e %b'")));
      default -> common(Kind.TEXT, d);
    };
  }

  private String dateTime(int d) {
    return switch (random.nextInt(5)) {
      case 0 -> fn("DATE", expr(Kind.DATETIME, d));
      case 1 -> call("INTERVAL", "(" + expr(Kind.DATETIME, d) + " + INTERVAL " + expr(Kind.INTEGER, d) + " "
          + pick(List.of("DAY", "HOUR", "MINUTE", "MONTH")) + ")");
      case 2 -> fn(pick(List.of("DATE_ADD", "DATE_SUB")), expr(Kind.DATETIME, d), "INTERVAL "
          + expr(Kind.INTEGER, d) + " " + pick(List.of("DAY", "HOUR", "WEEK")));
      default -> common(Kind.DATETIME, d);
    };
  }

  private String truth(int d) {
    Kind compared = pick(List.of(Kind.INTEGER, Kind.DECIMAL, Kind.TEXT, Kind.DATETIME));
    return switch (random.nextInt(8)) {
      case 0 -> call("AND", "(" + expr(Kind.TRUTH, d) + " AND " + expr(Kind.TRUTH, d) + ")");
      case 1 -> call("OR", "(" + expr(Kind.TRUTH, d) + " OR " + expr(Kind.TRUTH, d) + ")");
      case 2 -> call("NOT", "NOT (" + expr(Kind.TRUTH, d) + ")");
      case 3 -> call("IS NULL", "(" + expr(compared, d) + (random.nextBoolean() ? " IS NULL)" : " IS NOT NULL)"));
      case 4 -> call("<=>", "(" + expr(compared, d) + " <=> " + expr(compared, d) + ")");
      case 5 -> compared == Kind.DATETIME
          ? call("date compared", "(" + expr(Kind.DATETIME, d) + " >= " + pick(DATE_STRINGS) + ")")
          : call("comparison", "(" + expr(compared, d) + " " + pick(List.of("=", "!=", "<", ">=")) + " "
              + expr(compared, d) + ")");
      case 6 -> call("LIKE", "(" + expr(Kind.TEXT, d) + " LIKE " + pick(List.of("'a%'", "'%o%'", "'_'")) + ")");
      default -> call("IN", "(" + expr(Kind.INTEGER, d) + " IN (1, 3, NULL))");
    };
  }

  /** What takes and gives any kind: CASE, IF, IFNULL, COALESCE, NULLIF, GREATEST, LEAST. */
  private String common(Kind kind, int d) {
    return switch (random.nextInt(kind == Kind.TRUTH ? 4 : 7)) {
      case 0 -> call("CASE", "CASE WHEN " + expr(Kind.TRUTH, d) + " THEN " + expr(kind, d)
          + (random.nextBoolean() ? " WHEN " + expr(Kind.TRUTH, d) + " THEN " + expr(kind, d) : "")
          + (random.nextBoolean() ? " ELSE " + expr(kind, d) : "") + " END");
      case 1 -> fn("IF", expr(Kind.TRUTH, d), expr(kind, d), expr(kind, d));
      case 2 -> fn("IFNULL", expr(kind, d), expr(kind, d));
      case 3 -> fn("COALESCE", expr(kind, d), expr(kind, d), expr(kind, d));
      case 4 -> fn("NULLIF", expr(kind, d), expr(kind, d));
      default -> fn(pick(List.of("GREATEST", "LEAST")), expr(kind, d), expr(kind, d));
    };
  }

  private String cast(String arg, String type) {
    return call("CAST AS " + type, "CAST(" + arg + " AS " + type + ")");
  }

  private String fn(String name, String... args) {
    return call(name, name + "(" + String.join(", ", args) + ")");
  }

  private String call(String name, String text) {
    functions.merge(name, 1, Integer::sum);
    return text;
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** Any kind but TRUTH: for select items, group keys and MIN/MAX. */
  public Kind valueKind() {
    return pick(List.of(Kind.INTEGER, Kind.DECIMAL, Kind.TEXT, Kind.DATETIME));
  }
}
