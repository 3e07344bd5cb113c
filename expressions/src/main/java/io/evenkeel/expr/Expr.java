package io.evenkeel.expr;

import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A scalar or aggregate SQL expression over one row (or one group) of {@code transaction_logs}, as the parser
 * produces it after binding parameters. Values are {@code Long}, {@code BigDecimal}, {@code String}, {@code Boolean}
 * (a predicate's TRUE/FALSE), {@link SqlDateTime} (a DATETIME or DATE: {@code FROM_UNIXTIME}, {@code DATE}), or null
 * for SQL NULL.
 */
public sealed interface Expr {
  /**
   * A column of the table; {@code position} is where it stands in a {@link TableRow} (-1 for a name the table does
   * not have), resolved once here so that evaluation over many rows reads it without a lookup by name.
   */
  record Column(String name, int position) implements Expr {
    public Column {
      if (position != TableRow.positionOf(name)) {
        throw new IllegalArgumentException("column " + name + " stands at " + TableRow.positionOf(name) + ", not "
            + position);
      }
    }

    public Column(String name) {
      this(name, TableRow.positionOf(name));
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** {@code attr('key')}: the value of {@code key} in the row's attributes, NULL when absent. */
  record Attr(String key) implements Expr {
    @Override
    public String toString() {
      return "attr(" + Literal.quote(key) + ")";
    }
  }

  /** A constant; {@code value} null is SQL NULL. */
  record Literal(Object value) implements Expr {
    public static final Literal NULL = new Literal(null);

    @Override
    public String toString() {
      if (value == null) {
        return "NULL";
      }
      if (value instanceof String text) {
        return quote(text);
      }
      if (value instanceof BigDecimal decimal) {
        return decimal.toPlainString();
      }
      return value.toString();
    }

    static String quote(String text) {
      return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    }
  }

  /** An operator or scalar function applied to its arguments. */
  record Call(Op op, List<Expr> args) implements Expr {
    public Call {
      args = List.copyOf(args);
      if (op.arity() >= 0 && args.size() != op.arity()) {
        throw new IllegalArgumentException(op + " takes " + op.arity() + " arguments; got " + args.size());
      }
    }

    public static Call of(Op op, Expr... args) {
      return new Call(op, List.of(args));
    }

    public Expr arg(int i) {
      return args.get(i);
    }

    @Override
    public String toString() {
      return op.render(args.stream().map(Object::toString).collect(Collectors.toList()));
    }
  }

  /** An aggregate function over the rows of a group; {@code arg} null is {@code COUNT(*)}. */
  record Aggregate(AggregateFunction function, boolean distinct, Expr arg) implements Expr {
    public Aggregate {
      if (arg == null && function != AggregateFunction.COUNT) {
        throw new IllegalArgumentException(function + "(*) is not an aggregate; only COUNT(*) is");
      }
    }

    @Override
    public String toString() {
      return function + "(" + (distinct ? "DISTINCT " : "") + (arg == null ? "*" : arg.toString()) + ")";
    }
  }

  /** Whether this expression or one inside it is an aggregate. */
  default boolean hasAggregate() {
    if (this instanceof Aggregate) {
      return true;
    }
    return this instanceof Call call && call.args().stream().anyMatch(Expr::hasAggregate);
  }
}
