package io.evenkeel.expr;

import java.util.List;

/**
 * An expression prepared once for evaluation over many rows (a shard's candidate rows, a group's members): a tree of
 * small nodes, one per operator, each holding its arguments' nodes, so a row pays neither {@link Evaluator}'s
 * dispatch on the operator and the expression kind at every level nor the work that depends only on constants (a
 * date part's name, the shape {@code FROM_UNIXTIME(x / 1000)}). The operators of filters and group keys have nodes of
 * their own; every other call is a node that hands its subtree to the evaluator, so both give the same answers.
 * Single-threaded, as its evaluator.
 */
public final class CompiledExpression {
  /** One operator or leaf: its value over a row. */
  @FunctionalInterface
  private interface Node {
    Object eval(Env env);
  }

  private final Node root;

  private CompiledExpression(Node root) {
    this.root = root;
  }

  /** {@code expr} prepared for {@code evaluator}'s time zone, text bound and caches ({@link Evaluator#compile}). */
  static CompiledExpression compile(Expr expr, Evaluator evaluator) {
    return new CompiledExpression(node(expr, evaluator));
  }

  public Object eval(Env env) {
    return root.eval(env);
  }

  /** Whether the condition is TRUE (UNKNOWN and FALSE both reject, as WHERE does). */
  public boolean isTrue(Env env) {
    Object value = root.eval(env);
    return value instanceof Boolean truth ? truth : Boolean.TRUE.equals(SqlValues.truth(value));
  }

  private static Node node(Expr expr, Evaluator evaluator) {
    if (expr instanceof Expr.Literal literal) {
      Object value = literal.value();
      return env -> value;
    }
    if (expr instanceof Expr.Column column) {
      return env -> env.column(column);
    }
    if (!(expr instanceof Expr.Call call)) {
      return env -> evaluator.eval(expr, env); // attr() and aggregates: read from the environment
    }
    List<Expr> args = call.args();
    return switch (call.op()) {
      case AND -> and(nodes(args, evaluator));
      case OR -> or(nodes(args, evaluator));
      case NOT -> {
        Node arg = node(args.get(0), evaluator);
        yield env -> {
          Boolean truth = SqlValues.truth(arg.eval(env));
          return truth == null ? null : !truth;
        };
      }
      case EQ, NE, LT, LE, GT, GE -> comparison(call.op(), node(args.get(0), evaluator), node(args.get(1), evaluator));
      case IS_NULL -> {
        Node arg = node(args.get(0), evaluator);
        yield env -> arg.eval(env) == null;
      }
      case IS_NOT_NULL -> {
        Node arg = node(args.get(0), evaluator);
        yield env -> arg.eval(env) != null;
      }
      case PLUS, MINUS, TIMES, DIVIDE -> {
        Op op = call.op();
        Node a = node(args.get(0), evaluator);
        Node b = node(args.get(1), evaluator);
        yield env -> SqlValues.arithmetic(op, a.eval(env), b.eval(env));
      }
      case FROM_UNIXTIME -> fromUnixTime(args.get(0), evaluator);
      case DATE_PART -> datePart(DateFunctions.Part.named((String) ((Expr.Literal) args.get(0)).value()),
          args.get(1), evaluator);
      case DATE -> date(call, evaluator);
      default -> env -> evaluator.eval(call, env);
    };
  }

  private static Node[] nodes(List<Expr> args, Evaluator evaluator) {
    Node[] nodes = new Node[args.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = node(args.get(i), evaluator);
    }
    return nodes;
  }

  private static Node and(Node[] args) {
    return env -> {
      boolean unknown = false;
      for (Node arg : args) {
        Boolean truth = SqlValues.truth(arg.eval(env));
        if (Boolean.FALSE.equals(truth)) {
          return false;
        }
        unknown |= truth == null;
      }
      return unknown ? null : Boolean.TRUE;
    };
  }

  private static Node or(Node[] args) {
    return env -> {
      boolean unknown = false;
      for (Node arg : args) {
        Boolean truth = SqlValues.truth(arg.eval(env));
        if (Boolean.TRUE.equals(truth)) {
          return true;
        }
        unknown |= truth == null;
      }
      return unknown ? null : Boolean.FALSE;
    };
  }

  /** A comparison; two integers (the common case: a column or a date part against a number) compare directly. */
  private static Node comparison(Op op, Node a, Node b) {
    return env -> {
      Object x = a.eval(env);
      Object y = b.eval(env);
      Integer sign = x instanceof Long l && y instanceof Long r ? (Integer) Long.compare(l, r) : SqlValues.compare(x, y);
      return sign == null ? null : Evaluator.holds(op, sign);
    };
  }

  /**
   * {@code YEAR(x)}, {@code HOUR(x)}, ...; the hour, minute or second of {@code FROM_UNIXTIME(column / 1000)} in a
   * zone of fixed offset straight from the row's milliseconds, without the date-time (whose date costs most).
   */
  private static Node datePart(DateFunctions.Part part, Expr dateTime, Evaluator evaluator) {
    Node arg = node(dateTime, evaluator);
    int position = millisColumn(dateTime, evaluator);
    if (!part.ofTimeOfDay() || position < 0) {
      return env -> DateFunctions.part(part, arg.eval(env));
    }
    long offsetSeconds = EpochDay.offsetSeconds(evaluator);
    return env -> {
      if (!(env instanceof TableRow row && row.isInteger(position))) {
        return DateFunctions.part(part, arg.eval(env));
      }
      long millis = row.integerAt(position);
      // Before 1970 FROM_UNIXTIME is NULL, as in MySQL.
      return millis < 0 ? null : part.ofSecondOfDay(Math.floorMod(millis / 1_000 + offsetSeconds, 86_400L));
    };
  }

  /**
   * {@code DATE(x)}; of {@code FROM_UNIXTIME(column / 1000)} in a zone of fixed offset, the day straight from the
   * row's milliseconds ({@link EpochDay}), and the same DATE value again while the rows fall on the same day (rows are
   * read in the order they were written, which is mostly the order of their times).
   */
  private static Node date(Expr.Call call, Evaluator evaluator) {
    Node arg = node(call.args().get(0), evaluator);
    EpochDay epochDay = EpochDay.of(call, evaluator);
    int position = millisColumn(call.args().get(0), evaluator);
    if (epochDay == null || position < 0) {
      return env -> DateFunctions.date(arg.eval(env));
    }
    return new Node() {
      private long lastDay = EpochDay.NULL;
      private SqlDateTime lastDate;

      @Override
      public Object eval(Env env) {
        if (!(env instanceof TableRow row && row.isInteger(position))) {
          return DateFunctions.date(arg.eval(env));
        }
        long day = epochDay.day(row.integerAt(position));
        if (day != lastDay) {
          lastDate = EpochDay.date(day);
          lastDay = day;
        }
        return lastDate;
      }
    };
  }

  /**
   * Where the row holds the milliseconds of {@code dateTime} when it is {@code FROM_UNIXTIME(column / 1000)} in a
   * session time zone of fixed offset (its wall-clock time then follows from them by arithmetic); -1 otherwise.
   */
  private static int millisColumn(Expr dateTime, Evaluator evaluator) {
    Expr.Column column = EpochDay.millisColumn(dateTime, evaluator);
    return column == null ? -1 : column.position();
  }

  /** {@code FROM_UNIXTIME(x)}, and {@code FROM_UNIXTIME(x / 1000)} from the milliseconds when x is an integer. */
  private static Node fromUnixTime(Expr seconds, Evaluator evaluator) {
    Expr millis = Evaluator.millisOfQuotient(seconds);
    if (millis instanceof Expr.Column column && column.position() >= 0) {
      // The table's dates: epoch milliseconds of a row's column, read unboxed where the row holds them so.
      int position = column.position();
      return env -> env instanceof TableRow row && row.isInteger(position)
          ? evaluator.fromEpochMillis(row.integerAt(position)) : evaluator.fromUnixTimeOfMillis(env.column(column));
    }
    if (millis != null) {
      Node dividend = node(millis, evaluator);
      return env -> evaluator.fromUnixTimeOfMillis(dividend.eval(env));
    }
    Node arg = node(seconds, evaluator);
    return env -> evaluator.fromUnixTime(arg.eval(env));
  }
}
