package io.evenkeel.query.normalize;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A WHERE clause in negation normal form: AND and OR over leaves, each leaf meaning "this test is TRUE". SQL's NOT
 * is pushed into the leaves ({@code NOT (a = 1)} is {@code a != 1}, which NULL does not satisfy), so a row passes
 * the tree exactly when SQL's three-valued WHERE is TRUE: AND and OR are monotone in FALSE < UNKNOWN < TRUE.
 */
public sealed interface Predicate {
  /** All children hold. */
  record And(List<Predicate> children) implements Predicate {
    public And {
      children = List.copyOf(children);
    }

    @Override
    public String toString() {
      return children.stream().map(Object::toString).collect(Collectors.joining(" AND ", "(", ")"));
    }
  }

  /** At least one child holds. */
  record Or(List<Predicate> children) implements Predicate {
    public Or {
      children = List.copyOf(children);
    }

    @Override
    public String toString() {
      return children.stream().map(Object::toString).collect(Collectors.joining(" OR ", "(", ")"));
    }
  }

  /** {@code field op value} with op one of =, !=, <, <=, >, >= and a non-NULL value. */
  record Compare(Field field, Op op, Object value) implements Predicate {
    @Override
    public String toString() {
      return field + " " + switch (op) {
        case EQ -> "=";
        case NE -> "!=";
        case LT -> "<";
        case LE -> "<=";
        case GT -> ">";
        case GE -> ">=";
        default -> op.name();
      } + " " + render(value);
    }
  }

  /** {@code field [NOT] IN (values)}: distinct non-NULL values in ascending order. */
  record In(Field field, List<Object> values, boolean negated) implements Predicate {
    public In {
      values = List.copyOf(values);
    }

    @Override
    public String toString() {
      return field + (negated ? " NOT IN (" : " IN (")
          + values.stream().map(Predicate::render).collect(Collectors.joining(", ")) + ")";
    }
  }

  /** A range; a null bound is open. */
  record Range(Field field, Object lower, boolean lowerInclusive, Object upper, boolean upperInclusive)
      implements Predicate {
    @Override
    public String toString() {
      if (lower != null && upper != null && lowerInclusive && upperInclusive) {
        return field + " BETWEEN " + render(lower) + " AND " + render(upper);
      }
      if (lower != null && upper != null) {
        return field + " in " + (lowerInclusive ? "[" : "(") + render(lower) + ", " + render(upper)
            + (upperInclusive ? "]" : ")");
      }
      return lower == null ? field + (upperInclusive ? " <= " : " < ") + render(upper)
          : field + (lowerInclusive ? " >= " : " > ") + render(lower);
    }
  }

  /** {@code field IS NULL}, or {@code IS NOT NULL} when negated. */
  record IsNull(Field field, boolean negated) implements Predicate {
    @Override
    public String toString() {
      return field + (negated ? " IS NOT NULL" : " IS NULL");
    }
  }

  /** {@code field [NOT] LIKE pattern} on a keyword. */
  record Like(Field field, String pattern, boolean negated) implements Predicate {
    @Override
    public String toString() {
      return field + (negated ? " NOT LIKE " : " LIKE ") + render(pattern);
    }
  }

  /** {@code [NOT] MATCH(column) AGAINST(text)}. */
  record Match(String column, String text, boolean negated) implements Predicate {
    @Override
    public String toString() {
      return (negated ? "NOT " : "") + "MATCH(" + column + ") AGAINST(" + render(text) + ")";
    }
  }

  /** A condition no index answers (an expression, a column against a column): the service evaluates it. */
  record Residual(Expr condition) implements Predicate {
    @Override
    public String toString() {
      return condition.toString();
    }
  }

  /** TRUE, or not TRUE (FALSE or UNKNOWN: {@code a = NULL}). */
  record Constant(boolean value) implements Predicate {
    public static final Constant TRUE = new Constant(true);
    public static final Constant FALSE = new Constant(false);

    @Override
    public String toString() {
      return value ? "TRUE" : "FALSE";
    }
  }

  static String render(Object value) {
    if (value instanceof String text) {
      return "'" + text.replace("'", "''") + "'";
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return String.valueOf(value);
  }
}
