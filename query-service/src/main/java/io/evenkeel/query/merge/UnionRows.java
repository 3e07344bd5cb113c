package io.evenkeel.query.merge;

import io.evenkeel.expr.ValueKind;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.Statement;
import io.evenkeel.query.parse.UnionStatement;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The rows of a UNION from the rows of its two sides: combined, made one of each for UNION, ordered and paged. */
public final class UnionRows {
  private UnionRows() {}

  /**
   * What each output column of {@code statement} holds: text where any of its SELECTs may give text there, numbers
   * where all give numbers.
   */
  public static List<ValueKind> kinds(Statement statement) {
    if (statement instanceof SelectStatement select) {
      return select.items().stream().map(item -> ValueKind.of(item.expr())).toList();
    }
    UnionStatement union = (UnionStatement) statement;
    List<ValueKind> left = kinds(union.left());
    List<ValueKind> right = kinds(union.right());
    List<ValueKind> kinds = new ArrayList<>(left.size());
    for (int i = 0; i < left.size(); i++) {
      kinds.add(left.get(i).and(right.get(i)));
    }
    return kinds;
  }

  /**
   * Whether {@code side} orders its own rows as {@code union} orders them, so that the side's first rows in the
   * union's order are its first rows in its own: each key column holds values of one kind on both.
   */
  public static boolean ordersAlike(Statement side, UnionStatement union) {
    List<ValueKind> sideKinds = kinds(side);
    List<ValueKind> unionKinds = kinds(union);
    return union.orderBy().stream().allMatch(key -> unionKinds.get(key.column()) != ValueKind.EITHER
        && sideKinds.get(key.column()) == unionKinds.get(key.column()));
  }

  /**
   * {@code left} then {@code right}, with each column's values of the kind {@code kinds} gives it; for UNION (not
   * ALL) the first of each distinct row only.
   */
  public static List<List<Object>> combine(List<List<Object>> left, List<List<Object>> right, boolean all,
      List<ValueKind> kinds) {
    List<List<Object>> rows = new ArrayList<>(left.size() + right.size());
    rows.addAll(left);
    rows.addAll(right);
    unifyTypes(rows, kinds);
    if (all) {
      return rows;
    }
    Set<List<Object>> seen = new LinkedHashSet<>();
    List<List<Object>> distinct = new ArrayList<>();
    for (List<Object> row : rows) {
      if (seen.add(key(row))) {
        distinct.add(row);
      }
    }
    return distinct;
  }

  /** The union's ORDER BY, OFFSET and LIMIT applied to its combined rows. */
  public static List<List<Object>> page(List<List<Object>> rows, UnionStatement union) {
    if (!union.orderBy().isEmpty()) {
      Comparator<List<Object>> order = (a, b) -> 0;
      for (UnionStatement.Order key : union.orderBy()) {
        Comparator<List<Object>> byKey = (a, b) -> ValueOrder.compare(a.get(key.column()), b.get(key.column()));
        order = order.thenComparing(key.descending() ? byKey.reversed() : byKey);
      }
      rows = new ArrayList<>(rows);
      rows.sort(order);
    }
    long from = Math.min(union.offset(), rows.size());
    long to = union.end() == null ? rows.size() : Math.min(union.end(), rows.size());
    return from >= to ? List.of() : rows.subList((int) from, (int) to);
  }

  /**
   * A column that holds text is text in every row, as MySQL types a UNION's column by all its parts: {@code 1} and
   * {@code '1'} are then one value. Where the expressions do not tell, the values do.
   */
  private static void unifyTypes(List<List<Object>> rows, List<ValueKind> kinds) {
    for (int column = 0; column < kinds.size(); column++) {
      boolean text = kinds.get(column) == ValueKind.TEXT;
      if (kinds.get(column) == ValueKind.EITHER) {
        boolean strings = false;
        boolean others = false;
        for (List<Object> row : rows) {
          Object value = row.get(column);
          strings |= value instanceof String;
          others |= value != null && !(value instanceof String);
        }
        text = strings && others;
      }
      if (text) {
        for (int i = 0; i < rows.size(); i++) {
          Object value = rows.get(i).get(column);
          if (value != null && !(value instanceof String)) {
            List<Object> row = new ArrayList<>(rows.get(i));
            row.set(column, value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString());
            rows.set(i, row);
          }
        }
      }
    }
  }

  /** A row as a key of equality: numbers equal by value (2 and 2.00 are one value). */
  private static List<Object> key(List<Object> row) {
    List<Object> key = new ArrayList<>(row.size());
    for (Object value : row) {
      if (value instanceof Long number) {
        key.add(BigDecimal.valueOf(number));
      } else if (value instanceof BigDecimal decimal) {
        key.add(decimal.signum() == 0 ? BigDecimal.ZERO : decimal.stripTrailingZeros());
      } else {
        key.add(value);
      }
    }
    return key;
  }
}
