package io.evenkeel.expr;

/**
 * An expression that cannot be evaluated as written: a function given the wrong kind of value, a value out of
 * range, a text too long to build. The query service answers it as a 400 naming the problem; a shard server that
 * meets it while filtering refuses the call as an invalid argument, which the service answers the same way.
 */
public final class ExpressionException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private ExpressionException(String message) {
    super(message);
  }

  /** The expression is wrong for its values (types, ranges, sizes). */
  public static ExpressionException invalid(String message) {
    return new ExpressionException(message);
  }

  /** Valid SQL outside what the dialect supports; the message names the construct. */
  public static ExpressionException unsupported(String construct) {
    return new ExpressionException(construct + " is not supported");
  }
}
