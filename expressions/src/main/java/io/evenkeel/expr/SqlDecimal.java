package io.evenkeel.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A decimal MySQL computes with more digits than it shows: a quotient ({@code 2 / 3} is 0.666666666, shown
 * 0.6667) and what is computed from one. Arithmetic, ROUND, CAST and SUM/AVG use every digit, as MySQL's do ({@code
 * (2 / 3) * 3} is 1.999999998, shown 2.0000); comparisons, groups, distinct values, text and answers use the value
 * rounded to the digits shown ({@link #shown()}). Being a BigDecimal of all its digits, it goes wherever a decimal
 * goes; only where MySQL rounds does the code ask for {@link SqlValues#shown}.
 */
public final class SqlDecimal extends BigDecimal {
  private static final long serialVersionUID = 1L;

  private final int shownScale;

  private SqlDecimal(BigDecimal value, int shownScale) {
    super(value.unscaledValue(), value.scale());
    this.shownScale = shownScale;
  }

  /** {@code value} shown with {@code shownScale} digits: itself when it has no more than those. */
  public static BigDecimal of(BigDecimal value, int shownScale) {
    return value.scale() <= shownScale ? value.setScale(shownScale, RoundingMode.UNNECESSARY)
        : new SqlDecimal(value, shownScale);
  }

  /** The digits after the point MySQL shows. */
  public int shownScale() {
    return shownScale;
  }

  /** The value as MySQL shows and compares it: rounded half up to the digits shown. */
  public BigDecimal shown() {
    return setScale(shownScale, RoundingMode.HALF_UP);
  }
}
