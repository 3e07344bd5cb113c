package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.ResultTypes;
import io.evenkeel.query.result.QueryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlTypeNameSpec;

/**
 * MySQL's scalar functions by name (with their synonyms: LCASE, UCASE, SUBSTR, MID, CEILING, INSTR, ADDDATE, ...) as
 * {@link Expr} calls, each checked for its number of arguments; and {@code CAST}'s target types.
 */
final class ScalarFunctions {
  /** What {@link #call} knows, for the message naming a function it does not. */
  static final String NAMES = "COUNT, SUM, AVG, MIN, MAX, IFNULL, COALESCE, NULLIF, IF, GREATEST, LEAST, MOD, ABS, "
      + "SIGN, FLOOR, CEIL, ROUND, TRUNCATE, POW, SQRT, LOWER, UPPER, LENGTH, CHAR_LENGTH, CONCAT, CONCAT_WS, SUBSTRING, LEFT, "
      + "RIGHT, TRIM, LTRIM, RTRIM, REPLACE, LOCATE, INSTR, LPAD, RPAD, FROM_UNIXTIME, DATE_FORMAT, DATE, YEAR, "
      + "QUARTER, MONTH, DAY, DAYOFMONTH, DAYOFWEEK, WEEKDAY, DAYOFYEAR, HOUR, MINUTE, SECOND, UNIX_TIMESTAMP, DATE_ADD, "
      + "DATE_SUB, DATEDIFF, attr";
  /** MySQL's DECIMAL without a precision. */
  private static final int DEFAULT_DECIMAL_PRECISION = 10;

  private ScalarFunctions() {}

  /** {@code name(args)}, or empty for a name that is not a scalar function here. */
  static Optional<Expr> call(String name, List<Expr> args) {
    Expr call = switch (name) {
      case "IFNULL" -> temporal(Op.IFNULL, arity(name, args, 2, 2));
      case "COALESCE" -> temporal(Op.COALESCE, arity(name, args, 1, Integer.MAX_VALUE));
      case "NULLIF" -> new Expr.Call(Op.NULLIF, arity(name, args, 2, 2));
      case "IF" -> temporal(Op.IF, arity(name, args, 3, 3));
      case "GREATEST" -> temporal(Op.GREATEST, arity(name, args, 2, Integer.MAX_VALUE));
      case "LEAST" -> temporal(Op.LEAST, arity(name, args, 2, Integer.MAX_VALUE));
      case "MOD" -> new Expr.Call(Op.MOD, arity(name, args, 2, 2));
      case "ABS" -> new Expr.Call(Op.ABS, arity(name, args, 1, 1));
      case "SIGN" -> new Expr.Call(Op.SIGN, arity(name, args, 1, 1));
      case "FLOOR" -> new Expr.Call(Op.FLOOR, arity(name, args, 1, 1));
      case "CEIL", "CEILING" -> new Expr.Call(Op.CEIL, arity(name, args, 1, 1));
      case "ROUND" -> new Expr.Call(Op.ROUND, withDefault(arity(name, args, 1, 2), 2, new Expr.Literal(0L)));
      case "TRUNCATE" -> new Expr.Call(Op.TRUNCATE, arity(name, args, 2, 2));
      case "LOWER", "LCASE" -> new Expr.Call(Op.LOWER, arity(name, args, 1, 1));
      case "UPPER", "UCASE" -> new Expr.Call(Op.UPPER, arity(name, args, 1, 1));
      case "LENGTH", "OCTET_LENGTH" -> new Expr.Call(Op.LENGTH, arity(name, args, 1, 1));
      case "CHAR_LENGTH", "CHARACTER_LENGTH" -> new Expr.Call(Op.CHAR_LENGTH, arity(name, args, 1, 1));
      case "CONCAT" -> new Expr.Call(Op.CONCAT, arity(name, args, 1, Integer.MAX_VALUE));
      case "CONCAT_WS" -> new Expr.Call(Op.CONCAT_WS, arity(name, args, 2, Integer.MAX_VALUE));
      case "SUBSTRING", "SUBSTR", "MID" -> new Expr.Call(Op.SUBSTRING, arity(name, args, 2, 3));
      case "LEFT" -> new Expr.Call(Op.LEFT, arity(name, args, 2, 2));
      case "RIGHT" -> new Expr.Call(Op.RIGHT, arity(name, args, 2, 2));
      case "LTRIM" -> trim("LEADING", new Expr.Literal(" "), arity(name, args, 1, 1).get(0));
      case "RTRIM" -> trim("TRAILING", new Expr.Literal(" "), arity(name, args, 1, 1).get(0));
      case "REPLACE" -> new Expr.Call(Op.REPLACE, arity(name, args, 3, 3));
      case "LOCATE" -> new Expr.Call(Op.LOCATE, arity(name, args, 2, 3));
      case "INSTR" -> Expr.Call.of(Op.LOCATE, arity(name, args, 2, 2).get(1), args.get(0));
      case "LPAD" -> new Expr.Call(Op.LPAD, arity(name, args, 3, 3));
      case "RPAD" -> new Expr.Call(Op.RPAD, arity(name, args, 3, 3));
      case "DATE" -> new Expr.Call(Op.DATE, arity(name, args, 1, 1));
      case "YEAR", "QUARTER", "MONTH", "DAYOFMONTH", "DAYOFWEEK", "WEEKDAY", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND" ->
          Expr.Call.of(Op.DATE_PART, new Expr.Literal(name), arity(name, args, 1, 1).get(0));
      case "UNIX_TIMESTAMP" -> new Expr.Call(Op.UNIX_TIMESTAMP, arity(name, args, 0, 1));
      case "DATE_ADD", "ADDDATE" -> dateAdd(name, arity(name, args, 2, 2), false);
      case "DATE_SUB", "SUBDATE" -> dateAdd(name, arity(name, args, 2, 2), true);
      case "DATEDIFF" -> new Expr.Call(Op.DATEDIFF, arity(name, args, 2, 2));
      case "POW", "POWER" -> new Expr.Call(Op.POW, arity(name, args, 2, 2));
      case "SQRT" -> new Expr.Call(Op.SQRT, arity(name, args, 1, 1));
      default -> null;
    };
    return Optional.ofNullable(call);
  }

  /** {@code DATE_ADD(x, INTERVAL n unit)}; DATE_SUB adds -n. */
  private static Expr dateAdd(String name, List<Expr> args, boolean subtract) {
    if (!(args.get(1) instanceof Expr.Call interval && interval.op() == Op.INTERVAL)) {
      throw QueryException.invalid(name + " takes a date and an INTERVAL: " + name + "(x, INTERVAL 1 DAY)");
    }
    Expr amount = subtract ? Expr.Call.of(Op.NEGATE, interval.arg(0)) : interval.arg(0);
    return Expr.Call.of(Op.DATE_ADD, args.get(0), amount, interval.arg(1));
  }

  /** {@code TRIM(where remove FROM value)}; {@code where} is BOTH, LEADING or TRAILING. */
  static Expr trim(String where, Expr remove, Expr value) {
    return Expr.Call.of(Op.TRIM, new Expr.Literal(where), remove, value);
  }

  /** {@code CAST(value AS type)} for SIGNED [INTEGER], UNSIGNED [INTEGER], DECIMAL(p, s) and CHAR(n). */
  static Expr cast(Expr value, SqlDataTypeSpec type) {
    SqlTypeNameSpec spec = type.getTypeNameSpec();
    String name = spec.getTypeName().getSimple().toUpperCase(Locale.ROOT);
    int precision = spec instanceof SqlBasicTypeNameSpec basic ? basic.getPrecision() : -1;
    int scale = spec instanceof SqlBasicTypeNameSpec basic ? basic.getScale() : -1;
    return switch (name) {
      case "SIGNED", "INTEGER", "INT", "BIGINT" -> Expr.Call.of(Op.CAST_SIGNED, value);
      // Calcite's parser names MySQL's UNSIGNED [INTEGER] its own unsigned types.
      case "UNSIGNED", "UINTEGER", "UBIGINT" -> Expr.Call.of(Op.CAST_UNSIGNED, value);
      case "DECIMAL", "DEC", "NUMERIC" -> {
        int p = precision < 0 ? DEFAULT_DECIMAL_PRECISION : precision;
        int s = scale < 0 ? 0 : scale;
        checkDecimal(p, s);
        yield Expr.Call.of(Op.CAST_DECIMAL, value, new Expr.Literal((long) p), new Expr.Literal((long) s));
      }
      case "DATE" -> Expr.Call.of(Op.DATE, value);
      // MySQL's CAST takes no TIMESTAMP: the parse reads DATETIME as TIMESTAMP (MySqlSyntax).
      case "TIMESTAMP" -> {
        int digits = precision < 0 ? 0 : precision;
        if (digits > 6) {
          throw QueryException.invalid("DATETIME(" + digits + "): at most 6 fractional-second digits");
        }
        yield Expr.Call.of(Op.CAST_DATETIME, value, new Expr.Literal((long) digits));
      }
      case "CHAR" -> Expr.Call.of(Op.CAST_CHAR, value, precision < 0 ? Expr.Literal.NULL
          : new Expr.Literal((long) precision));
      default -> throw QueryException.unsupported("CAST to " + name + " (SIGNED, UNSIGNED, DECIMAL(p, s), CHAR, "
          + "DATE and DATETIME are supported)");
    };
  }

  /** A call whose results may be DATEs and DATETIMEs: typed as MySQL types them ({@link ResultTypes}). */
  static Expr temporal(Op op, List<Expr> args) {
    return new Expr.Call(op, ResultTypes.unify(op, args));
  }

  /** The precision and scale of {@code DECIMAL(p, s)}, as MySQL checks them. */
  private static void checkDecimal(int precision, int scale) {
    if (precision < 1 || precision > SqlValues.MAX_DECIMAL_PRECISION) {
      throw QueryException.invalid("DECIMAL precision " + precision + " is out of range (1 to "
          + SqlValues.MAX_DECIMAL_PRECISION + ")");
    }
    if (scale < 0 || scale > Math.min(precision, SqlValues.MAX_DECIMAL_SCALE)) {
      throw QueryException.invalid("DECIMAL(" + precision + ", " + scale + "): the scale must be between 0 and "
          + Math.min(precision, SqlValues.MAX_DECIMAL_SCALE));
    }
  }

  private static List<Expr> arity(String name, List<Expr> args, int least, int most) {
    if (args.size() < least || args.size() > most) {
      String expected = least == most ? Integer.toString(least) : most == Integer.MAX_VALUE ? "at least " + least
          : least + " or " + most;
      throw QueryException.invalid(name + " takes " + expected + " arguments; got " + args.size());
    }
    return args;
  }

  private static List<Expr> withDefault(List<Expr> args, int size, Expr missing) {
    List<Expr> all = new ArrayList<>(args);
    while (all.size() < size) {
      all.add(missing);
    }
    return all;
  }
}
