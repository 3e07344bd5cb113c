package io.evenkeel.shard.testing;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Brute-force evaluation of the shard query semantics over in-memory rows, written independently of Lucene. */
public final class Reference {
  private Reference() {}

  public static boolean matches(Filter filter, TransactionLogChange row) {
    return switch (filter.getKindCase()) {
      case MATCH_ALL -> true;
      case TERM -> Integer.valueOf(0).equals(compare(row, filter.getTerm().getField(), filter.getTerm().getValue()));
      case TERMS -> filter.getTerms().getValuesList().stream()
          .anyMatch(v -> Integer.valueOf(0).equals(compare(row, filter.getTerms().getField(), v)));
      case RANGE -> {
        var range = filter.getRange();
        Object value = value(row, range.getField());
        if (value == null) {
          yield false;
        }
        boolean ok = true;
        if (range.hasLower()) {
          int c = compare(row, range.getField(), range.getLower());
          ok = range.getLowerInclusive() ? c >= 0 : c > 0;
        }
        if (ok && range.hasUpper()) {
          int c = compare(row, range.getField(), range.getUpper());
          ok = range.getUpperInclusive() ? c <= 0 : c < 0;
        }
        yield ok;
      }
      case MATCH -> {
        String title = row.getTitle();
        if (title == null) {
          yield false;
        }
        Set<String> words = words(title);
        yield words(filter.getMatch().getText()).stream().anyMatch(words::contains);
      }
      case BOOL -> bool(filter.getBool(), row);
      case EXISTS -> value(row, filter.getExists().getField()) != null;
      case LIKE -> {
        Object value = value(row, filter.getLike().getField());
        yield value != null && likeRegex(filter.getLike().getPattern()).matcher((String) value).matches();
      }
      case COMPOSITE_RANGE -> {
        var range = filter.getCompositeRange();
        long[] key = {row.getTenantId(), row.getCreatedTime()};
        long[] lower = {range.getLower(0).getLongValue(), range.getLower(1).getLongValue()};
        long[] upper = {range.getUpper(0).getLongValue(), range.getUpper(1).getLongValue()};
        yield Arrays.compare(key, lower) >= 0 && Arrays.compare(key, upper) <= 0;
      }
      // The dialect's own evaluator defines a row condition's meaning.
      case ROW_CONDITION -> new Evaluator().isTrue(ExpressionCodec.decode(filter.getRowCondition()), TableRow.of(row));
      case KIND_NOT_SET -> throw new IllegalArgumentException("empty filter");
    };
  }

  private static boolean bool(Bool bool, TransactionLogChange row) {
    for (Filter f : bool.getMustList()) {
      if (!matches(f, row)) {
        return false;
      }
    }
    for (Filter f : bool.getMustNotList()) {
      if (matches(f, row)) {
        return false;
      }
    }
    return bool.getShouldCount() == 0 || bool.getShouldList().stream().anyMatch(f -> matches(f, row));
  }

  /** A column's value: Long (decimals as BigDecimal) or String; null for NULL. */
  public static Object value(TransactionLogChange row, String field) {
    Object value = row.get(field);
    if (value instanceof Integer i) {
      return i.longValue();
    }
    return value;
  }

  /** row.field compared with a filter value: negative, 0 or positive; null when the row's value is NULL. */
  private static Integer compare(TransactionLogChange row, String field, Value filterValue) {
    Object value = value(row, field);
    if (value == null) {
      return null;
    }
    Column column = TransactionLogsTable.require(field);
    if (column.type() == ColumnType.KEYWORD) {
      return Integer.signum(((String) value).compareTo(filterValue.getStringValue()));
    }
    BigDecimal left = value instanceof BigDecimal d ? d : BigDecimal.valueOf((Long) value);
    BigDecimal right = switch (filterValue.getKindCase()) {
      case LONG_VALUE -> BigDecimal.valueOf(filterValue.getLongValue());
      case DECIMAL_VALUE -> new BigDecimal(filterValue.getDecimalValue());
      default -> throw new IllegalArgumentException("unexpected " + filterValue);
    };
    return left.compareTo(right);
  }

  public static Set<String> words(String text) {
    return Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
        .filter(w -> !w.isEmpty())
        .collect(Collectors.toSet());
  }

  private static Pattern likeRegex(String like) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < like.length(); i++) {
      char c = like.charAt(i);
      if (c == '\\' && i + 1 < like.length()) {
        regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
      } else if (c == '%') {
        regex.append("(?s).*");
      } else if (c == '_') {
        regex.append("(?s).");
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }

  /** Orders values as the shard does: NULL lowest, then numbers or code-point order of strings. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static final Comparator<Object> NULLS_LOW = (a, b) -> {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return ((Comparable) a).compareTo(b);
  };
}
