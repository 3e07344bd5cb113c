package io.evenkeel.query.normalize;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import java.util.ArrayList;
import java.util.List;

/**
 * A predicate as the expression it tests, for evaluation on a row: in negation normal form each leaf is TRUE exactly
 * where its expression is (a negated leaf's NOT is NULL on a NULL column, and a WHERE rejects both), so a row passes
 * the expression where it passes the predicate.
 */
public final class PredicateExpressions {
  private PredicateExpressions() {}

  public static Expr of(Predicate predicate) {
    if (predicate instanceof Predicate.And and) {
      return new Expr.Call(Op.AND, all(and.children()));
    }
    if (predicate instanceof Predicate.Or or) {
      return new Expr.Call(Op.OR, all(or.children()));
    }
    if (predicate instanceof Predicate.Compare compare) {
      return Expr.Call.of(compare.op(), field(compare.field()), new Expr.Literal(compare.value()));
    }
    if (predicate instanceof Predicate.In in) {
      List<Expr> args = new ArrayList<>();
      args.add(field(in.field()));
      in.values().forEach(value -> args.add(new Expr.Literal(value)));
      return negated(new Expr.Call(Op.IN, args), in.negated());
    }
    if (predicate instanceof Predicate.Range range) {
      List<Expr> bounds = new ArrayList<>();
      if (range.lower() != null) {
        bounds.add(Expr.Call.of(range.lowerInclusive() ? Op.GE : Op.GT, field(range.field()),
            new Expr.Literal(range.lower())));
      }
      if (range.upper() != null) {
        bounds.add(Expr.Call.of(range.upperInclusive() ? Op.LE : Op.LT, field(range.field()),
            new Expr.Literal(range.upper())));
      }
      return bounds.size() == 1 ? bounds.get(0) : new Expr.Call(Op.AND, bounds);
    }
    if (predicate instanceof Predicate.IsNull isNull) {
      return Expr.Call.of(isNull.negated() ? Op.IS_NOT_NULL : Op.IS_NULL, field(isNull.field()));
    }
    if (predicate instanceof Predicate.Like like) {
      return negated(Expr.Call.of(Op.LIKE, field(like.field()), new Expr.Literal(like.pattern())), like.negated());
    }
    if (predicate instanceof Predicate.Match match) {
      return negated(Expr.Call.of(Op.MATCH, new Expr.Column(match.column()), new Expr.Literal(match.text())),
          match.negated());
    }
    if (predicate instanceof Predicate.Residual residual) {
      return residual.condition();
    }
    return new Expr.Literal(((Predicate.Constant) predicate).value());
  }

  private static List<Expr> all(List<Predicate> predicates) {
    return predicates.stream().map(PredicateExpressions::of).toList();
  }

  private static Expr field(Field field) {
    return field.isAttribute() ? new Expr.Attr(field.attributeKey()) : new Expr.Column(field.column());
  }

  private static Expr negated(Expr test, boolean negated) {
    return negated ? Expr.Call.of(Op.NOT, test) : test;
  }
}
