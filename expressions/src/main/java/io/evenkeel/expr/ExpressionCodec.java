package io.evenkeel.expr;

import io.evenkeel.schemas.shard.Expression;
import io.evenkeel.schemas.shard.ExpressionCall;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link Expr} without aggregates in its wire form ({@link Expression}) and back: how a filter the shards' index
 * cannot answer travels to them, to be evaluated on their rows exactly as the service would.
 */
public final class ExpressionCodec {
  /**
   * The deepest expression that travels: two message levels each, well within protobuf's nesting limit of 100, and deeper than
   * what is written by hand (a chain of a thousand ORs stays in the service).
   */
  public static final int MAX_DEPTH = 32;

  private ExpressionCodec() {}

  /**
   * Whether {@code expr} has a wire form: no aggregate, constants of the kinds a {@link Value} holds, at most {@link
   * #MAX_DEPTH} deep.
   */
  public static boolean encodable(Expr expr) {
    return encodable(expr, 1);
  }

  private static boolean encodable(Expr expr, int depth) {
    if (depth > MAX_DEPTH) {
      return false;
    }
    if (expr instanceof Expr.Literal literal) {
      return SqlValueCodec.encodable(literal.value());
    }
    if (expr instanceof Expr.Call call) {
      return call.args().stream().allMatch(arg -> encodable(arg, depth + 1));
    }
    return expr instanceof Expr.Column || expr instanceof Expr.Attr;
  }

  public static Expression encode(Expr expr) {
    if (expr instanceof Expr.Column column) {
      return Expression.newBuilder().setColumn(column.name()).build();
    }
    if (expr instanceof Expr.Attr attr) {
      return Expression.newBuilder().setAttr(attr.key()).build();
    }
    if (expr instanceof Expr.Literal literal) {
      if (literal.value() instanceof Boolean truth) {
        return Expression.newBuilder().setTruth(truth).build();
      }
      return Expression.newBuilder().setLiteral(SqlValueCodec.encode(literal.value())).build();
    }
    if (expr instanceof Expr.Call call) {
      ExpressionCall.Builder wire = ExpressionCall.newBuilder().setOp(call.op().name());
      call.args().forEach(arg -> wire.addArgs(encode(arg)));
      return Expression.newBuilder().setCall(wire).build();
    }
    throw new IllegalArgumentException("no wire form for the aggregate " + expr);
  }

  /** The expression {@code wire} holds; an IllegalArgumentException naming what is wrong with a malformed one. */
  public static Expr decode(Expression wire) {
    return switch (wire.getKindCase()) {
      // The table's own name string: a row's column lookups by it then compare references, not characters.
      case COLUMN -> new Expr.Column(TransactionLogsTable.require(wire.getColumn()).name());
      case ATTR -> new Expr.Attr(wire.getAttr());
      case TRUTH -> new Expr.Literal(wire.getTruth());
      case LITERAL -> new Expr.Literal(constant(wire.getLiteral()));
      case CALL -> {
        Op op;
        try {
          op = Op.valueOf(wire.getCall().getOp());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("unknown operator in an expression: " + wire.getCall().getOp());
        }
        List<Expr> args = new ArrayList<>(wire.getCall().getArgsCount());
        wire.getCall().getArgsList().forEach(arg -> args.add(decode(arg)));
        yield new Expr.Call(op, args);
      }
      case KIND_NOT_SET -> throw new IllegalArgumentException("an expression without a kind");
    };
  }

  private static Object constant(Value value) {
    if (value.hasDoubleValue()) {
      throw new IllegalArgumentException("an expression's constants are exact; got a double");
    }
    return SqlValueCodec.decode(value);
  }
}
