package io.evenkeel.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Evaluates expressions with SQL's three-valued logic (null is UNKNOWN for predicates and NULL for values). One
 * instance per query: it caches the LIKE patterns and MATCH query words it compiles.
 */
public final class Evaluator {
  /** Where the text a query's functions build is charged: a query cannot grow strings beyond its memory budget. */
  @FunctionalInterface
  public interface TextMemory {
    /** Takes {@code chars} characters more for text {@code function} built, or throws the query's refusal. */
    void charge(long chars, String function);
  }

  private final Map<String, Pattern> likePatterns = new HashMap<>();
  private final Map<String, Set<String>> matchWords = new HashMap<>();
  private final TextMemory textMemory;
  private final ZoneId timeZone;

  /**
   * An evaluator in UTC whose built text is bounded only per value ({@link StringFunctions#MAX_RESULT_CHARS}).
   */
  public Evaluator() {
    this((chars, function) -> { }, ZoneOffset.UTC);
  }

  /**
   * @param textMemory charged with the text functions build
   * @param timeZone the session time zone: where FROM_UNIXTIME and UNIX_TIMESTAMP meet wall-clock time
   */
  public Evaluator(TextMemory textMemory, ZoneId timeZone) {
    this.textMemory = textMemory;
    this.timeZone = timeZone;
  }

  public Object eval(Expr expr, Env env) {
    if (expr instanceof Expr.Literal literal) {
      return literal.value();
    }
    if (expr instanceof Expr.Column column) {
      return env.column(column);
    }
    if (expr instanceof Expr.Attr attr) {
      return env.attr(attr.key());
    }
    if (expr instanceof Expr.Aggregate aggregate) {
      return env.aggregate(aggregate);
    }
    return call((Expr.Call) expr, env);
  }

  /** The session time zone. */
  ZoneId timeZone() {
    return timeZone;
  }

  /** {@code expr} prepared once for evaluation over many rows by this evaluator. */
  public CompiledExpression compile(Expr expr) {
    return CompiledExpression.compile(expr, this);
  }

  /** Whether a condition is TRUE (UNKNOWN and FALSE both reject, as WHERE and HAVING do). */
  public boolean isTrue(Expr condition, Env env) {
    return Boolean.TRUE.equals(SqlValues.truth(eval(condition, env)));
  }

  private Object call(Expr.Call call, Env env) {
    List<Expr> args = call.args();
    switch (call.op()) {
      case AND -> {
        boolean unknown = false;
        for (Expr arg : args) {
          Boolean truth = SqlValues.truth(eval(arg, env));
          if (Boolean.FALSE.equals(truth)) {
            return false;
          }
          unknown |= truth == null;
        }
        return unknown ? null : Boolean.TRUE;
      }
      case OR -> {
        boolean unknown = false;
        for (Expr arg : args) {
          Boolean truth = SqlValues.truth(eval(arg, env));
          if (Boolean.TRUE.equals(truth)) {
            return true;
          }
          unknown |= truth == null;
        }
        return unknown ? null : Boolean.FALSE;
      }
      case NOT -> {
        Boolean truth = SqlValues.truth(eval(args.get(0), env));
        return truth == null ? null : !truth;
      }
      case EQ, NE, LT, LE, GT, GE -> {
        Integer sign = SqlValues.compare(eval(args.get(0), env), eval(args.get(1), env));
        return sign == null ? null : holds(call.op(), sign);
      }
      case NULL_SAFE_EQ -> {
        Object a = eval(args.get(0), env);
        Object b = eval(args.get(1), env);
        return a == null || b == null ? a == b : SqlValues.compare(a, b) == 0;
      }
      case BETWEEN -> {
        Object value = eval(args.get(0), env);
        Boolean low = holdsOrNull(Op.GE, SqlValues.compare(value, eval(args.get(1), env)));
        Boolean high = holdsOrNull(Op.LE, SqlValues.compare(value, eval(args.get(2), env)));
        return and(low, high);
      }
      case IN -> {
        Object value = eval(args.get(0), env);
        if (value == null) {
          return null;
        }
        boolean unknown = false;
        for (Expr item : args.subList(1, args.size())) {
          Integer sign = SqlValues.compare(value, eval(item, env));
          if (sign == null) {
            unknown = true;
          } else if (sign == 0) {
            return true;
          }
        }
        return unknown ? null : Boolean.FALSE;
      }
      case IS_NULL -> {
        return eval(args.get(0), env) == null;
      }
      case IS_NOT_NULL -> {
        return eval(args.get(0), env) != null;
      }
      case LIKE -> {
        Object value = eval(args.get(0), env);
        Object pattern = eval(args.get(1), env);
        if (value == null || pattern == null) {
          return null;
        }
        return likePatterns.computeIfAbsent(text(pattern, "a LIKE pattern"), Evaluator::compileLike)
            .matcher(text(value, "LIKE")).matches();
      }
      case MATCH -> {
        Object value = eval(args.get(0), env);
        Object query = eval(args.get(1), env);
        if (value == null || query == null) {
          return null;
        }
        Set<String> wanted = matchWords.computeIfAbsent(text(query, "AGAINST"), TextWords::of);
        for (String word : TextWords.of(text(value, "MATCH"))) {
          if (wanted.contains(word)) {
            return true;
          }
        }
        return false;
      }
      case PLUS, MINUS, TIMES, DIVIDE -> {
        return SqlValues.arithmetic(call.op(), eval(args.get(0), env), eval(args.get(1), env));
      }
      case NEGATE -> {
        return SqlValues.negate(eval(args.get(0), env));
      }
      case IFNULL, COALESCE -> {
        for (Expr arg : args) {
          Object value = eval(arg, env);
          if (value != null) {
            return value;
          }
        }
        return null;
      }
      case FROM_UNIXTIME -> {
        Expr millis = millisOfQuotient(args.get(0));
        return millis != null ? fromUnixTimeOfMillis(eval(millis, env)) : fromUnixTime(eval(args.get(0), env));
      }
      case DATE_FORMAT -> {
        Object value = eval(args.get(0), env);
        Object format = eval(args.get(1), env);
        if (value == null || format == null) {
          return null;
        }
        SqlDateTime dateTime = DateFunctions.temporal(value, "DATE_FORMAT");
        return dateTime == null ? null : DateFormat.format(dateTime, text(format, "a DATE_FORMAT format"));
      }
      case CASE -> {
        for (int i = 0; i + 1 < args.size(); i += 2) {
          if (isTrue(args.get(i), env)) {
            return eval(args.get(i + 1), env);
          }
        }
        return eval(args.get(args.size() - 1), env);
      }
      case IF -> {
        return eval(args.get(isTrue(args.get(0), env) ? 1 : 2), env);
      }
      case NULLIF -> {
        Object value = eval(args.get(0), env);
        Integer sign = SqlValues.compare(value, eval(args.get(1), env));
        return sign != null && sign == 0 ? null : value;
      }
      case GREATEST, LEAST -> {
        Object best = null;
        for (Expr arg : args) {
          Object value = eval(arg, env);
          if (value == null) {
            return null;
          }
          if (best == null || SqlValues.compare(value, best) * (call.op() == Op.GREATEST ? 1 : -1) > 0) {
            best = value;
          }
        }
        return best;
      }
      case MOD -> {
        return MathFunctions.mod(eval(args.get(0), env), eval(args.get(1), env));
      }
      case DIV -> {
        return MathFunctions.div(eval(args.get(0), env), eval(args.get(1), env));
      }
      case POW -> {
        return MathFunctions.power(eval(args.get(0), env), eval(args.get(1), env), false);
      }
      case SQRT -> {
        return MathFunctions.power(eval(args.get(0), env), null, true);
      }
      case SHOWN_SCALE -> {
        Object value = eval(args.get(0), env);
        if (!SqlValues.isNumber(value)) {
          return value;
        }
        BigDecimal decimal = SqlValues.decimal(value);
        return SqlDecimal.of(decimal, Math.max(SqlValues.shownScale(decimal), constant(args.get(1))));
      }
      case CAST_DATETIME -> {
        return Casts.dateTime(eval(args.get(0), env), (Long) ((Expr.Literal) args.get(1)).value());
      }
      case CAST_SIGNED -> {
        return Casts.signed(eval(args.get(0), env));
      }
      case CAST_UNSIGNED -> {
        return Casts.unsigned(eval(args.get(0), env));
      }
      case CAST_DECIMAL -> {
        return Casts.decimal(eval(args.get(0), env), constant(args.get(1)), constant(args.get(2)));
      }
      case CAST_CHAR -> {
        return Casts.chars(eval(args.get(0), env), (Long) ((Expr.Literal) args.get(1)).value());
      }
      case ABS -> {
        return MathFunctions.abs(eval(args.get(0), env));
      }
      case SIGN -> {
        return MathFunctions.sign(eval(args.get(0), env));
      }
      case FLOOR, CEIL -> {
        return MathFunctions.floorOrCeil(eval(args.get(0), env), call.op() == Op.FLOOR);
      }
      case ROUND, TRUNCATE -> {
        return MathFunctions.round(eval(args.get(0), env), eval(args.get(1), env),
            call.op() == Op.ROUND ? RoundingMode.HALF_UP : RoundingMode.DOWN, call.op().name());
      }
      case LOWER -> {
        return StringFunctions.lower(eval(args.get(0), env));
      }
      case UPPER -> {
        return StringFunctions.upper(eval(args.get(0), env));
      }
      case LENGTH -> {
        return StringFunctions.length(eval(args.get(0), env));
      }
      case CHAR_LENGTH -> {
        return StringFunctions.charLength(eval(args.get(0), env));
      }
      case CONCAT -> {
        return built(StringFunctions.concat(values(args, env)), "CONCAT");
      }
      case CONCAT_WS -> {
        return built(StringFunctions.concatWithSeparator(eval(args.get(0), env), values(args.subList(1, args.size()),
            env)), "CONCAT_WS");
      }
      case SUBSTRING -> {
        Object length = args.size() > 2 ? eval(args.get(2), env) : (Object) Long.MAX_VALUE;
        return length == null ? null : StringFunctions.substring(eval(args.get(0), env), eval(args.get(1), env),
            length);
      }
      case LEFT -> {
        return StringFunctions.left(eval(args.get(0), env), eval(args.get(1), env));
      }
      case RIGHT -> {
        return StringFunctions.right(eval(args.get(0), env), eval(args.get(1), env));
      }
      case TRIM -> {
        return StringFunctions.trim((String) ((Expr.Literal) args.get(0)).value(), eval(args.get(1), env),
            eval(args.get(2), env));
      }
      case REPLACE -> {
        return built(StringFunctions.replace(eval(args.get(0), env), eval(args.get(1), env), eval(args.get(2), env)),
            "REPLACE");
      }
      case LOCATE -> {
        return StringFunctions.locate(eval(args.get(0), env), eval(args.get(1), env),
            args.size() > 2 ? eval(args.get(2), env) : null);
      }
      case LPAD, RPAD -> {
        return built(StringFunctions.pad(eval(args.get(0), env), eval(args.get(1), env), eval(args.get(2), env),
            call.op() == Op.LPAD), call.op().name());
      }
      case DATE -> {
        return DateFunctions.date(eval(args.get(0), env));
      }
      case DATE_PART -> {
        return DateFunctions.part(DateFunctions.Part.named((String) ((Expr.Literal) args.get(0)).value()),
            eval(args.get(1), env));
      }
      case UNIX_TIMESTAMP -> {
        return args.isEmpty() ? Instant.now().getEpochSecond() : DateFunctions.unixTimestamp(eval(args.get(0), env),
            timeZone);
      }
      case DATE_ADD -> {
        return DateFunctions.add(eval(args.get(0), env), eval(args.get(1), env),
            DateFunctions.Unit.named((String) ((Expr.Literal) args.get(2)).value()));
      }
      case DATEDIFF -> {
        return DateFunctions.dateDiff(eval(args.get(0), env), eval(args.get(1), env));
      }
      case INTERVAL -> throw ExpressionException.invalid("an INTERVAL is only an argument of DATE_ADD and DATE_SUB: "
          + call);
      default -> throw new IllegalStateException("no evaluation for " + call.op());
    }
  }

  /** A text a function made longer than its arguments: charged to the query's memory. */
  private Object built(Object value, String function) {
    if (value instanceof String text) {
      textMemory.charge(text.length(), function);
    }
    return value;
  }

  private List<Object> values(List<Expr> args, Env env) {
    List<Object> values = new ArrayList<>(args.size());
    for (Expr arg : args) {
      values.add(eval(arg, env));
    }
    return values;
  }

  /** An integer the parser put in the expression as a literal (a CAST's precision or scale). */
  private static int constant(Expr literal) {
    return ((Long) ((Expr.Literal) literal).value()).intValue();
  }

  /**
   * Epoch seconds (times are epoch ms: divide by 1000) to a date-time in the session time zone; NULL before 1970, as
   * in MySQL.
   */
  SqlDateTime fromUnixTime(Object seconds) {
    if (seconds == null) {
      return null;
    }
    if (!SqlValues.isNumber(seconds)) {
      throw ExpressionException.invalid("FROM_UNIXTIME needs epoch seconds; got " + SqlValues.describe(seconds));
    }
    BigDecimal exact = SqlValues.decimal(seconds);
    if (exact.signum() < 0) {
      return null;
    }
    int digits = Math.min(SqlValues.shownScale(exact), 6);
    BigDecimal rounded = exact.setScale(digits, RoundingMode.DOWN);
    long whole = rounded.longValue();
    int nanos = rounded.subtract(BigDecimal.valueOf(whole)).movePointRight(9).intValue();
    return dateTime(whole, nanos, digits);
  }

  /**
   * The dividend of {@code x / 1000}, or null for any other expression: {@code FROM_UNIXTIME(created_time / 1000)},
   * in every date filter of this table, is computed from the milliseconds directly instead of through a decimal
   * quotient (the same value).
   */
  static Expr millisOfQuotient(Expr seconds) {
    return seconds instanceof Expr.Call division && division.op() == Op.DIVIDE
        && division.args().get(1) instanceof Expr.Literal divisor && Long.valueOf(1_000L).equals(divisor.value())
        ? division.args().get(0) : null;
  }

  /** {@code FROM_UNIXTIME(millis / 1000)}. */
  SqlDateTime fromUnixTimeOfMillis(Object millis) {
    return millis instanceof Long whole ? fromEpochMillis(whole)
        : fromUnixTime(SqlValues.arithmetic(Op.DIVIDE, millis, 1_000L));
  }

  /** {@code FROM_UNIXTIME(millis / 1000)}: a quotient shown with 4 digits, so a date-time with 4 fractional digits. */
  SqlDateTime fromEpochMillis(long millis) {
    return millis < 0 ? null
        : dateTime(millis / 1_000, (int) (millis % 1_000) * 1_000_000, SqlValues.DIV_PRECISION_INCREMENT);
  }

  /** An instant as a date-time in the session time zone. */
  private SqlDateTime dateTime(long epochSecond, int nanos, int digits) {
    LocalDateTime local = timeZone instanceof ZoneOffset offset
        ? LocalDateTime.ofEpochSecond(epochSecond, nanos, offset)
        : LocalDateTime.ofInstant(Instant.ofEpochSecond(epochSecond, nanos), timeZone);
    return new SqlDateTime(local, digits);
  }

  /** SQL LIKE as a regular expression: % any run, _ one character, \ escapes the next character. */
  static Pattern compileLike(String pattern) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        literal.append(pattern.charAt(++i));
      } else if (c == '%' || c == '_') {
        if (literal.length() > 0) {
          regex.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        regex.append(c == '%' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    if (literal.length() > 0) {
      regex.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  private static String text(Object value, String what) {
    if (value instanceof String text) {
      return text;
    }
    throw ExpressionException.invalid(what + " needs a string; got " + SqlValues.describe(value));
  }

  static boolean holds(Op op, int sign) {
    return switch (op) {
      case EQ -> sign == 0;
      case NE -> sign != 0;
      case LT -> sign < 0;
      case LE -> sign <= 0;
      case GT -> sign > 0;
      case GE -> sign >= 0;
      default -> throw new IllegalArgumentException(op + " is not a comparison");
    };
  }

  private static Boolean holdsOrNull(Op op, Integer sign) {
    return sign == null ? null : holds(op, sign);
  }

  private static Boolean and(Boolean a, Boolean b) {
    if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
      return false;
    }
    return a == null || b == null ? null : Boolean.TRUE;
  }
}
