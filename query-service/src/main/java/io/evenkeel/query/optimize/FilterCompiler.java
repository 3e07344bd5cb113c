package io.evenkeel.query.optimize;

import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.query.normalize.PredicateExpressions;
import io.evenkeel.schemas.shard.AccessPath;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.schemas.shard.Exists;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Like;
import io.evenkeel.schemas.shard.Match;
import io.evenkeel.schemas.shard.MatchAll;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;

/**
 * An {@link AccessPlan} as the shards' structured filter. The shards use Lucene's boolean semantics, where a NULL
 * column matches no predicate and so passes a {@code must_not}: every negated leaf therefore also requires the
 * column to exist, which gives SQL's answer ({@code status != 1} excludes rows whose status is NULL). A service
 * scan's condition goes to the shards as a row condition, which they test on each candidate row; one that cannot
 * travel ({@link ExpressionCodec#encodable}) compiles to match-all, and the service applies it to the rows it gets.
 */
public final class FilterCompiler {
  private static final Filter MATCH_ALL = Filter.newBuilder().setMatchAll(MatchAll.getDefaultInstance()).build();
  private static final Filter MATCH_NONE = Filter.newBuilder()
      .setBool(Bool.newBuilder().addMustNot(MATCH_ALL)).build();

  private FilterCompiler() {}

  /**
   * The shards' filter for {@code plan}; {@code conditionsOnShards}: whether service scans go to the shards as row
   * conditions (else match-all).
   */
  public static Filter compile(AccessPlan plan, boolean conditionsOnShards) {
    if (plan instanceof AccessPlan.Conjunction conjunction) {
      Bool.Builder bool = Bool.newBuilder();
      for (AccessPlan part : conjunction.parts()) {
        Filter filter = compile(part, conditionsOnShards);
        if (filter.equals(MATCH_NONE)) {
          return MATCH_NONE;
        }
        if (!filter.equals(MATCH_ALL)) {
          bool.addMust(filter);
        }
      }
      return bool.getMustCount() == 0 ? MATCH_ALL
          : bool.getMustCount() == 1 ? bool.getMust(0) : Filter.newBuilder().setBool(bool).build();
    }
    if (plan instanceof AccessPlan.Union union) {
      Bool.Builder bool = Bool.newBuilder();
      for (AccessPlan branch : union.branches()) {
        Filter filter = compile(branch, conditionsOnShards);
        if (filter.equals(MATCH_ALL)) {
          return MATCH_ALL; // a branch the shards cannot narrow: the service filters every row
        }
        if (!filter.equals(MATCH_NONE)) {
          bool.addShould(filter);
        }
      }
      return bool.getShouldCount() == 0 ? MATCH_NONE
          : bool.getShouldCount() == 1 ? bool.getShould(0) : Filter.newBuilder().setBool(bool).build();
    }
    if (plan instanceof AccessPlan.CompositeRange range) {
      CompositeRange.Builder composite = CompositeRange.newBuilder().setIndex(range.index());
      range.lower().forEach(bound -> composite.addLower(Value.newBuilder().setLongValue(bound)));
      range.upper().forEach(bound -> composite.addUpper(Value.newBuilder().setLongValue(bound)));
      return Filter.newBuilder().setCompositeRange(composite).build();
    }
    if (plan instanceof AccessPlan.IndexLookup lookup) {
      return leaf(lookup.leaf(), AccessPath.INDEX);
    }
    if (plan instanceof AccessPlan.DocValuesScan scan) {
      return leaf(scan.leaf(), AccessPath.DOC_VALUES);
    }
    if (plan instanceof AccessPlan.ServiceScan scan) {
      return onShards(scan, conditionsOnShards) ? Filter.newBuilder()
          .setRowCondition(ExpressionCodec.encode(PredicateExpressions.of(scan.condition()))).build() : MATCH_ALL;
    }
    return ((AccessPlan.Constant) plan).all() ? MATCH_ALL : MATCH_NONE;
  }

  /** Whether the shards test {@code scan}'s condition themselves (else the service must, on the rows it gets). */
  static boolean onShards(AccessPlan.ServiceScan scan, boolean conditionsOnShards) {
    return conditionsOnShards && ExpressionCodec.encodable(PredicateExpressions.of(scan.condition()));
  }

  private static Filter leaf(Predicate leaf, AccessPath access) {
    if (leaf instanceof Predicate.Compare compare) {
      String field = compare.field().indexField();
      Value value = value(compare.value());
      return switch (compare.op()) {
        case EQ -> term(field, value, access);
        case NE -> notNullAndNot(field, term(field, value, access));
        case LT -> range(field, null, false, value, false, access);
        case LE -> range(field, null, false, value, true, access);
        case GT -> range(field, value, false, null, false, access);
        case GE -> range(field, value, true, null, false, access);
        default -> throw new IllegalArgumentException("not a comparison: " + compare);
      };
    }
    if (leaf instanceof Predicate.In in) {
      Terms.Builder terms = Terms.newBuilder().setField(in.field().indexField()).setAccess(access);
      in.values().forEach(v -> terms.addValues(value(v)));
      Filter filter = Filter.newBuilder().setTerms(terms).build();
      return in.negated() ? notNullAndNot(in.field().indexField(), filter) : filter;
    }
    if (leaf instanceof Predicate.Range range) {
      return range(range.field().indexField(), range.lower() == null ? null : value(range.lower()),
          range.lowerInclusive(), range.upper() == null ? null : value(range.upper()), range.upperInclusive(), access);
    }
    if (leaf instanceof Predicate.IsNull isNull) {
      Filter exists = exists(isNull.field().indexField());
      return isNull.negated() ? exists : Filter.newBuilder().setBool(Bool.newBuilder().addMustNot(exists)).build();
    }
    if (leaf instanceof Predicate.Like like) {
      Filter filter = Filter.newBuilder()
          .setLike(Like.newBuilder().setField(like.field().indexField()).setPattern(like.pattern())).build();
      return like.negated() ? notNullAndNot(like.field().indexField(), filter) : filter;
    }
    if (leaf instanceof Predicate.Match match) {
      Filter filter = Filter.newBuilder()
          .setMatch(Match.newBuilder().setField(match.column()).setText(match.text())).build();
      return match.negated() ? notNullAndNot(match.column(), filter) : filter;
    }
    throw new IllegalArgumentException("no shard filter for " + leaf);
  }

  /** SQL's NOT over a column: the column is not NULL and the test fails. */
  private static Filter notNullAndNot(String field, Filter test) {
    return Filter.newBuilder().setBool(Bool.newBuilder().addMust(exists(field)).addMustNot(test)).build();
  }

  private static Filter exists(String field) {
    return Filter.newBuilder().setExists(Exists.newBuilder().setField(field)).build();
  }

  private static Filter term(String field, Value value, AccessPath access) {
    return Filter.newBuilder().setTerm(Term.newBuilder().setField(field).setValue(value).setAccess(access)).build();
  }

  private static Filter range(String field, Value lower, boolean lowerInclusive, Value upper, boolean upperInclusive,
      AccessPath access) {
    Range.Builder range = Range.newBuilder().setField(field).setAccess(access);
    if (lower != null) {
      range.setLower(lower).setLowerInclusive(lowerInclusive);
    }
    if (upper != null) {
      range.setUpper(upper).setUpperInclusive(upperInclusive);
    }
    return Filter.newBuilder().setRange(range).build();
  }

  public static Value value(Object value) {
    if (value instanceof Long number) {
      return Value.newBuilder().setLongValue(number).build();
    }
    if (value instanceof BigDecimal decimal) {
      return Value.newBuilder().setDecimalValue(decimal.toPlainString()).build();
    }
    if (value instanceof String text) {
      return Value.newBuilder().setStringValue(text).build();
    }
    throw new IllegalArgumentException("no shard value for " + value);
  }
}
