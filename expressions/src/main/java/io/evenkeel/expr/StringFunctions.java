package io.evenkeel.expr;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * MySQL's string functions over utf8mb4 text, counted in characters (code points, so that an emoji is one character,
 * not two Java chars); case mapping is per character, as MySQL's is ('ß' stays 'ß' in upper case). Numbers and
 * date-times become their text first, as in MySQL; NULL in gives NULL out, except where CONCAT_WS skips it.
 */
final class StringFunctions {
  /** The longest text a function builds (LPAD, RPAD, REPEAT-like growth): MySQL's max_allowed_packet default. */
  static final int MAX_RESULT_CHARS = 16 * 1024 * 1024;

  private StringFunctions() {}

  static Object lower(Object value) {
    return value == null ? null : mapCase(Casts.text(value), false);
  }

  static Object upper(Object value) {
    return value == null ? null : mapCase(Casts.text(value), true);
  }

  /** {@code LENGTH}: bytes of the UTF-8 text. */
  static Object length(Object value) {
    return value == null ? null : (long) Casts.text(value).getBytes(StandardCharsets.UTF_8).length;
  }

  static Object charLength(Object value) {
    if (value == null) {
      return null;
    }
    String text = Casts.text(value);
    return (long) text.codePointCount(0, text.length());
  }

  /** {@code CONCAT}: NULL if any value is. */
  static Object concat(List<Object> values) {
    StringBuilder text = new StringBuilder();
    for (Object value : values) {
      if (value == null) {
        return null;
      }
      append(text, Casts.text(value));
    }
    return text.toString();
  }

  /** {@code CONCAT_WS(separator, values...)}: NULL values are skipped; a NULL separator gives NULL. */
  static Object concatWithSeparator(Object separator, List<Object> values) {
    if (separator == null) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    boolean first = true;
    for (Object value : values) {
      if (value != null) {
        if (!first) {
          append(text, Casts.text(separator));
        }
        append(text, Casts.text(value));
        first = false;
      }
    }
    return text.toString();
  }

  /**
   * {@code SUBSTRING(text, position[, length])}: from the 1-based position (negative: counted from the end; 0 gives
   * ''), {@code length} characters (Long.MAX_VALUE: to the end).
   */
  static Object substring(Object value, Object position, Object length) {
    if (value == null || position == null || length == null) {
      return null;
    }
    int[] chars = Casts.text(value).codePoints().toArray();
    long from = whole(position, "SUBSTRING");
    long start = from > 0 ? from - 1 : chars.length + from;
    if (from == 0 || start < 0 || start >= chars.length) {
      return "";
    }
    long count = Math.min(chars.length - start, Math.max(0, whole(length, "SUBSTRING")));
    return new String(chars, (int) start, (int) count);
  }

  static Object left(Object value, Object length) {
    if (value == null || length == null) {
      return null;
    }
    int[] chars = Casts.text(value).codePoints().toArray();
    long count = Math.max(0, Math.min(chars.length, whole(length, "LEFT")));
    return new String(chars, 0, (int) count);
  }

  static Object right(Object value, Object length) {
    if (value == null || length == null) {
      return null;
    }
    int[] chars = Casts.text(value).codePoints().toArray();
    long count = Math.max(0, Math.min(chars.length, whole(length, "RIGHT")));
    return new String(chars, chars.length - (int) count, (int) count);
  }

  /** {@code TRIM}: removes {@code remove} repeatedly from the start ('LEADING'), the end ('TRAILING') or both. */
  static Object trim(String where, Object remove, Object value) {
    if (remove == null || value == null) {
      return null;
    }
    String text = Casts.text(value);
    String cut = Casts.text(remove);
    if (cut.isEmpty()) {
      return text;
    }
    int start = 0;
    int end = text.length();
    if (!where.equals("TRAILING")) {
      while (text.startsWith(cut, start) && start + cut.length() <= end) {
        start += cut.length();
      }
    }
    if (!where.equals("LEADING")) {
      while (end - cut.length() >= start && text.startsWith(cut, end - cut.length())) {
        end -= cut.length();
      }
    }
    return text.substring(start, end);
  }

  /**
   * {@code REPLACE(text, from, to)}: every occurrence, case-sensitively. As in MariaDB, a {@code from} that is empty
   * or not found gives the text unchanged, even when {@code to} is NULL.
   */
  static Object replace(Object value, Object from, Object to) {
    if (value == null || from == null) {
      return null;
    }
    String text = Casts.text(value);
    String target = Casts.text(from);
    if (target.isEmpty() || !text.contains(target)) {
      return text;
    }
    if (to == null) {
      return null;
    }
    String replaced = text.replace(target, Casts.text(to));
    if (replaced.length() > MAX_RESULT_CHARS) {
      throw tooLong("REPLACE");
    }
    return replaced;
  }

  /**
   * {@code LOCATE(substring, text[, start])}: the 1-based character position of the substring at or after start, 0
   * where it is absent.
   */
  static Object locate(Object needle, Object value, Object start) {
    if (needle == null || value == null) {
      return null;
    }
    String text = Casts.text(value);
    String sought = Casts.text(needle);
    long from = 1;
    if (start != null) {
      from = whole(start, "LOCATE");
    }
    int chars = text.codePointCount(0, text.length());
    if (from < 1 || from > chars + 1) {
      return 0L;
    }
    int at = text.indexOf(sought, text.offsetByCodePoints(0, (int) from - 1));
    return at < 0 ? 0L : (long) text.codePointCount(0, at) + 1;
  }

  /** {@code LPAD} ({@code left} true) and {@code RPAD}: padded with {@code pad} repeated, or cut, to {@code length}. */
  static Object pad(Object value, Object length, Object pad, boolean left) {
    if (value == null || length == null || pad == null) {
      return null;
    }
    long wanted = whole(length, left ? "LPAD" : "RPAD");
    if (wanted < 0) {
      return null;
    }
    if (wanted > MAX_RESULT_CHARS) {
      throw tooLong(left ? "LPAD" : "RPAD");
    }
    int[] chars = Casts.text(value).codePoints().toArray();
    if (chars.length >= wanted) {
      return new String(chars, 0, (int) wanted);
    }
    int[] filler = Casts.text(pad).codePoints().toArray();
    if (filler.length == 0) {
      return null;
    }
    int[] padded = new int[(int) wanted];
    int fill = padded.length - chars.length;
    for (int i = 0; i < fill; i++) {
      padded[left ? i : chars.length + i] = filler[i % filler.length];
    }
    System.arraycopy(chars, 0, padded, left ? fill : 0, chars.length);
    return new String(padded, 0, padded.length);
  }

  private static String mapCase(String text, boolean upper) {
    StringBuilder mapped = new StringBuilder(text.length());
    text.codePoints().forEach(c -> mapped.appendCodePoint(upper ? Character.toUpperCase(c)
        : Character.toLowerCase(c)));
    return mapped.toString();
  }

  private static void append(StringBuilder text, String more) {
    if (text.length() + more.length() > MAX_RESULT_CHARS) {
      throw tooLong("CONCAT");
    }
    text.append(more);
  }

  private static long whole(Object value, String function) {
    Object number = MathFunctions.number(value, function);
    if (!(number instanceof Long whole)) {
      throw ExpressionException.invalid(function + " takes whole numbers of characters; got " + SqlValues.describe(value));
    }
    return whole;
  }

  private static ExpressionException tooLong(String function) {
    return ExpressionException.invalid(function + " would build a text of more than " + MAX_RESULT_CHARS + " characters");
  }
}
