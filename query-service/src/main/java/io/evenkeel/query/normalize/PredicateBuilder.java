package io.evenkeel.query.normalize;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.table.ColumnType;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a WHERE expression into a {@link Predicate} in negation normal form, pushing NOT down to the leaves (De
 * Morgan; NOT flips a comparison, IN, IS NULL, LIKE or MATCH). Leaves compare one field with constants; anything else
 * becomes a {@link Predicate.Residual} the service evaluates. A comparison with NULL is never TRUE, negated or not.
 * Types are checked here: a keyword compares only with strings, a number only with numbers.
 */
public final class PredicateBuilder {
  private PredicateBuilder() {}

  public static Predicate build(Expr where) {
    return where == null ? Predicate.Constant.TRUE : build(where, false);
  }

  private static Predicate build(Expr expr, boolean negated) {
    if (expr instanceof Expr.Literal literal) {
      Boolean truth = SqlValues.truth(literal.value());
      return truth == null ? Predicate.Constant.FALSE : new Predicate.Constant(truth != negated);
    }
    if (!(expr instanceof Expr.Call call)) {
      return residual(expr, negated);
    }
    List<Expr> args = call.args();
    switch (call.op()) {
      case AND, OR -> {
        List<Predicate> children = new ArrayList<>();
        args.forEach(arg -> children.add(build(arg, negated)));
        boolean and = (call.op() == Op.AND) != negated;
        return and ? new Predicate.And(children) : new Predicate.Or(children);
      }
      case NOT -> {
        return build(args.get(0), !negated);
      }
      case EQ, NE, LT, LE, GT, GE -> {
        return compare(call, negated);
      }
      case BETWEEN -> {
        Field field = field(args.get(0));
        if (field == null || !comparable(field) || !(args.get(1) instanceof Expr.Literal low)
            || !(args.get(2) instanceof Expr.Literal high)) {
          return residual(expr, negated);
        }
        if (negated) {
          return new Predicate.Or(List.of(leaf(field, Op.LT, low.value()), leaf(field, Op.GT, high.value())));
        }
        if (low.value() == null || high.value() == null) {
          return Predicate.Constant.FALSE;
        }
        checkType(field, low.value());
        checkType(field, high.value());
        return new Predicate.Range(field, low.value(), true, high.value(), true);
      }
      case IN -> {
        return in(call, negated);
      }
      case IS_NULL, IS_NOT_NULL -> {
        Field field = field(args.get(0));
        if (field == null || field.type() == ColumnType.ATTRIBUTES) {
          return residual(expr, negated);
        }
        return new Predicate.IsNull(field, (call.op() == Op.IS_NOT_NULL) != negated);
      }
      case LIKE -> {
        Field field = field(args.get(0));
        if (field == null || field.type() != ColumnType.KEYWORD || !(args.get(1) instanceof Expr.Literal pattern)) {
          return residual(expr, negated);
        }
        if (pattern.value() == null) {
          return Predicate.Constant.FALSE;
        }
        if (!(pattern.value() instanceof String text)) {
          throw QueryException.invalid("LIKE needs a string pattern; got " + pattern);
        }
        return new Predicate.Like(field, text, negated);
      }
      case MATCH -> {
        String text = (String) ((Expr.Literal) args.get(1)).value();
        if (text == null) {
          return Predicate.Constant.FALSE;
        }
        return new Predicate.Match(((Expr.Column) args.get(0)).name(), text, negated);
      }
      default -> {
        return residual(expr, negated);
      }
    }
  }

  private static Predicate compare(Expr.Call call, boolean negated) {
    Expr left = call.arg(0);
    Expr right = call.arg(1);
    Op op = call.op();
    if (left instanceof Expr.Literal && !(right instanceof Expr.Literal)) {
      Expr swap = left;
      left = right;
      right = swap;
      op = mirror(op);
    }
    Field field = field(left);
    if (field == null || !(right instanceof Expr.Literal literal) || !comparable(field)) {
      return residual(call, negated);
    }
    return leaf(field, negated ? negate(op) : op, literal.value());
  }

  private static Predicate leaf(Field field, Op op, Object value) {
    if (value == null) {
      return Predicate.Constant.FALSE;
    }
    checkType(field, value);
    return new Predicate.Compare(field, op, value);
  }

  private static Predicate in(Expr.Call call, boolean negated) {
    Field field = field(call.arg(0));
    List<Object> values = new ArrayList<>();
    boolean hasNull = false;
    for (Expr item : call.args().subList(1, call.args().size())) {
      if (!(item instanceof Expr.Literal literal)) {
        return residual(call, negated);
      }
      if (literal.value() == null) {
        hasNull = true;
      } else {
        values.add(literal.value());
      }
    }
    if (field == null || !comparable(field)) {
      return residual(call, negated);
    }
    // x IN (1, NULL) is TRUE for 1 and UNKNOWN otherwise; x NOT IN (1, NULL) is never TRUE.
    if (values.isEmpty() || (negated && hasNull)) {
      return Predicate.Constant.FALSE;
    }
    values.forEach(value -> checkType(field, value));
    return new Predicate.In(field, Values.sortedDistinct(values), negated);
  }

  /** A column or attribute the shards can test, or null for any other expression. */
  private static Field field(Expr expr) {
    if (expr instanceof Expr.Column column) {
      return Field.column(column.name());
    }
    if (expr instanceof Expr.Attr attr) {
      return Field.attribute(attr.key());
    }
    return null;
  }

  /** Full text and the raw attributes string are compared by the service, not by an index. */
  private static boolean comparable(Field field) {
    return field.type() != ColumnType.TEXT && field.type() != ColumnType.ATTRIBUTES;
  }

  private static void checkType(Field field, Object value) {
    boolean keyword = field.type() == ColumnType.KEYWORD;
    if (keyword && !(value instanceof String)) {
      throw QueryException.invalid(field + " is a string (" + (field.isAttribute() ? "attribute" : field.type())
          + "); compare it with a string, not " + SqlValues.describe(value));
    }
    if (!keyword && !SqlValues.isNumber(value)) {
      throw QueryException.invalid(field + " is a number (" + field.type() + "); compare it with a number, not "
          + SqlValues.describe(value));
    }
  }

  private static Predicate residual(Expr expr, boolean negated) {
    return new Predicate.Residual(negated ? Expr.Call.of(Op.NOT, expr) : expr);
  }

  private static Op mirror(Op op) {
    return switch (op) {
      case LT -> Op.GT;
      case LE -> Op.GE;
      case GT -> Op.LT;
      case GE -> Op.LE;
      default -> op;
    };
  }

  private static Op negate(Op op) {
    return switch (op) {
      case EQ -> Op.NE;
      case NE -> Op.EQ;
      case LT -> Op.GE;
      case LE -> Op.GT;
      case GT -> Op.LE;
      case GE -> Op.LT;
      default -> throw new IllegalArgumentException(op + " is not a comparison");
    };
  }
}
