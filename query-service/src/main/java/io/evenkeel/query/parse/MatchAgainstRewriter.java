package io.evenkeel.query.parse;

import io.evenkeel.query.result.QueryException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites MySQL's {@code MATCH(col) AGAINST('words' [IN NATURAL LANGUAGE MODE])} into the call {@code
 * MATCH_AGAINST(col, 'words')} before Calcite parses the text: neither Calcite's core nor its babel parser knows the
 * syntax. Quoted strings, quoted identifiers and comments are skipped, so a literal 'match(x) against(y)' stays
 * text.
 */
final class MatchAgainstRewriter {
  static final String FUNCTION = "MATCH_AGAINST";

  private static final Pattern MATCH_AGAINST = Pattern.compile(
      "MATCH\\s*\\(\\s*((?:`[^`]+`|\\w+)(?:\\s*\\.\\s*(?:`[^`]+`|\\w+))?)\\s*\\)\\s*AGAINST\\s*\\(\\s*"
          + "('(?:[^'\\\\]|\\\\.|'')*'|\\?)\\s*(IN\\s+NATURAL\\s+LANGUAGE\\s+MODE\\s*|IN\\s+BOOLEAN\\s+MODE\\s*|"
          + "WITH\\s+QUERY\\s+EXPANSION\\s*)?\\)",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern MATCH_WORD = Pattern.compile("MATCH\\s*\\(", Pattern.CASE_INSENSITIVE);

  private MatchAgainstRewriter() {}

  static String rewrite(String sql) {
    StringBuilder out = new StringBuilder(sql.length());
    Matcher match = MATCH_AGAINST.matcher(sql);
    Matcher word = MATCH_WORD.matcher(sql);
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      int skip = skipQuotedOrComment(sql, i);
      if (skip > i) {
        out.append(sql, i, skip);
        i = skip;
        continue;
      }
      boolean wordStart = i == 0 || !isIdentifierChar(sql.charAt(i - 1));
      if (wordStart && (c == 'm' || c == 'M') && word.region(i, sql.length()).lookingAt()) {
        if (!match.region(i, sql.length()).lookingAt()) {
          throw QueryException.invalid("MATCH must be written MATCH(title) AGAINST('words'), near: "
              + sql.substring(i, Math.min(sql.length(), i + 60)));
        }
        String mode = match.group(3);
        if (mode != null && !mode.toUpperCase().startsWith("IN NATURAL")) {
          throw QueryException.unsupported("MATCH ... AGAINST(... " + mode.strip().toUpperCase() + ")");
        }
        out.append(FUNCTION).append('(').append(match.group(1)).append(", ").append(match.group(2)).append(')');
        i = match.end();
        continue;
      }
      out.append(c);
      i++;
    }
    return out.toString();
  }

  /** The index after a quoted string, quoted identifier or comment starting at {@code i}; {@code i} when none. */
  private static int skipQuotedOrComment(String sql, int i) {
    char c = sql.charAt(i);
    if (c == '\'' || c == '"' || c == '`') {
      int j = i + 1;
      while (j < sql.length()) {
        char d = sql.charAt(j);
        if (d == '\\' && c != '`') {
          j += 2;
        } else if (d == c && j + 1 < sql.length() && sql.charAt(j + 1) == c) {
          j += 2;
        } else if (d == c) {
          return j + 1;
        } else {
          j++;
        }
      }
      return sql.length();
    }
    if (sql.startsWith("--", i) || c == '#') {
      int end = sql.indexOf('\n', i);
      return end < 0 ? sql.length() : end;
    }
    if (sql.startsWith("/*", i)) {
      int end = sql.indexOf("*/", i + 2);
      return end < 0 ? sql.length() : end + 2;
    }
    return i;
  }

  private static boolean isIdentifierChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
