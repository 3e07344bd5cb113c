package io.evenkeel.query.parse;

import io.evenkeel.query.result.QueryException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites the MySQL syntax Calcite's parser does not know into syntax it does, before it parses the text:
 * <ul>
 *   <li>{@code MATCH(col) AGAINST('words' [IN NATURAL LANGUAGE MODE])} into the call {@code MATCH_AGAINST(col,
 *       'words')};
 *   <li>{@code a DIV b} into {@code a || b}, which the translator reads as DIV (Calcite parses {@code ||} at the
 *       precedence of {@code /}); a {@code ||} as written is MySQL's OR and becomes {@code OR}, {@code &&} AND;
 *   <li>{@code a MOD b} into {@code a % b}; {@code a <=> b} into {@code a IS NOT DISTINCT FROM b}; {@code DAY(x)}
 *       into {@code DAYOFMONTH(x)}; the type DATETIME into TIMESTAMP (which MySQL's CAST does not take, so it means
 *       DATETIME here); {@code CONVERT(x, type)} into {@code CAST(x AS type)};
 *   <li>an alias named by a word Calcite reserves ({@code AS day}, {@code GROUP BY day}) into a quoted name.
 * </ul>
 * Quoted strings, quoted identifiers and comments are skipped, so a literal 'match(x) against(y)' or 'a div b' stays
 * text.
 */
final class MySqlSyntax {
  static final String MATCH_FUNCTION = "MATCH_AGAINST";
  /** What {@code DIV} becomes. */
  static final String DIV_OPERATOR = "||";

  private static final Pattern MATCH_AGAINST = Pattern.compile(
      "MATCH\\s*\\(\\s*((?:`[^`]+`|\\w+)(?:\\s*\\.\\s*(?:`[^`]+`|\\w+))?)\\s*\\)\\s*AGAINST\\s*\\(\\s*"
          + "('(?:[^'\\\\]|\\\\.|'')*'|\\?)\\s*(IN\\s+NATURAL\\s+LANGUAGE\\s+MODE\\s*|IN\\s+BOOLEAN\\s+MODE\\s*|"
          + "WITH\\s+QUERY\\s+EXPANSION\\s*)?\\)",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern MATCH_WORD = Pattern.compile("MATCH\\s*\\(", Pattern.CASE_INSENSITIVE);
  private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");
  private static final Pattern OPEN_PARENTHESIS = Pattern.compile("\\s*\\(");

  private MySqlSyntax() {}

  static String rewrite(String sql) {
    return rewrite(sql, aliases(sql));
  }

  /**
   * The names a statement declares with {@code AS} (select and table aliases; not the types of CAST), lower-cased.
   * MySQL takes any word there, {@code AS day} or {@code AS month}, where Calcite reserves many (DAY, MONTH, VALUE,
   * INITIAL, ...): the rewrite quotes these names where they name the alias.
   */
  private static Set<String> aliases(String sql) {
    Set<String> aliases = new HashSet<>();
    Tokens tokens = new Tokens();
    int i = 0;
    while (i < sql.length()) {
      int skip = skipQuotedOrComment(sql, i);
      if (skip > i) {
        tokens.literal(sql.charAt(i));
        i = skip;
        continue;
      }
      char c = sql.charAt(i);
      Matcher name = WORD.matcher(sql).region(i, sql.length());
      if ((i == 0 || !isIdentifierChar(sql.charAt(i - 1))) && name.lookingAt()) {
        if (tokens.previousIs("AS") && !tokens.inCast()) {
          aliases.add(name.group().toLowerCase(Locale.ROOT));
        }
        tokens.word(name.group());
        i = name.end();
        continue;
      }
      tokens.symbol(c);
      i++;
    }
    return aliases;
  }

  /**
   * The tokens before the rewrite's position, as much as it needs: the last two, and for each open parenthesis
   * whether it is a CAST's or CONVERT's (where {@code AS} names a type, not an alias).
   */
  private static final class Tokens {
    private final Deque<Boolean> castParentheses = new ArrayDeque<>();
    private String previous;
    private String beforePrevious;
    private boolean castCall;

    void word(String word) {
      castCall = word.equalsIgnoreCase("CAST") || word.equalsIgnoreCase("CONVERT");
      shift(word);
    }

    /** A quoted string or name: {@code 'x'} counts as a literal, {@code `x`} as a name. */
    void literal(char quote) {
      castCall = false;
      shift(quote == '`' ? "`name`" : "'literal'");
    }

    void symbol(char c) {
      if (Character.isWhitespace(c)) {
        return;
      }
      if (c == '(') {
        castParentheses.push(castCall);
      } else if (c == ')' && !castParentheses.isEmpty()) {
        castParentheses.pop();
      }
      castCall = false;
      shift(Character.isDigit(c) || c == '.' ? "'literal'" : String.valueOf(c));
    }

    boolean previousIs(String word) {
      return word.equalsIgnoreCase(previous);
    }

    boolean inCast() {
      return !castParentheses.isEmpty() && castParentheses.peek();
    }

    /** Whether a word here is an INTERVAL's unit: {@code INTERVAL 2 DAY}, {@code INTERVAL (n + 1) DAY}. */
    boolean atIntervalUnit() {
      return "INTERVAL".equalsIgnoreCase(beforePrevious) || ")".equals(previous) || "'literal'".equals(previous)
          || "?".equals(previous);
    }

    private void shift(String token) {
      beforePrevious = previous;
      previous = token;
    }
  }

  private static String rewrite(String sql, Set<String> aliases) {
    StringBuilder out = new StringBuilder(sql.length());
    Matcher match = MATCH_AGAINST.matcher(sql);
    Matcher word = MATCH_WORD.matcher(sql);
    Tokens tokens = new Tokens();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      int skip = skipQuotedOrComment(sql, i);
      if (skip > i) {
        tokens.literal(c);
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
        out.append(MATCH_FUNCTION).append('(').append(match.group(1)).append(", ").append(match.group(2)).append(')');
        tokens.symbol(')');
        i = match.end();
        continue;
      }
      if (sql.startsWith("<=>", i)) {
        out.append(" IS NOT DISTINCT FROM ");
        tokens.symbol('=');
        i += 3;
        continue;
      }
      if (sql.startsWith("||", i) || sql.startsWith("&&", i)) {
        out.append(c == '|' ? " OR " : " AND ");
        tokens.word(c == '|' ? "OR" : "AND");
        i += 2;
        continue;
      }
      Matcher name = WORD.matcher(sql).region(i, sql.length());
      boolean qualified = i > 0 && sql.charAt(i - 1) == '.';
      if (wordStart && !qualified && name.lookingAt()) {
        String upper = name.group().toUpperCase(Locale.ROOT);
        boolean call = OPEN_PARENTHESIS.matcher(sql).region(name.end(), sql.length()).lookingAt();
        int end = name.end();
        if (upper.equals("CONVERT") && call) {
          int open = sql.indexOf('(', end);
          List<String> args = arguments(sql, open);
          int close = open + 1 + String.join(",", args).length();
          if (args.size() == 2 && close < sql.length()) {
            out.append("CAST(").append(rewrite(args.get(0), aliases)).append(" AS ")
                .append(rewrite(args.get(1), aliases)).append(')');
            tokens.symbol(')');
            i = close + 1;
            continue;
          }
        }
        int unit = upper.equals("INTERVAL") && !call ? intervalUnit(sql, end) : -1;
        if (unit > 0) {
          // Calcite takes a literal, a name or a parenthesized expression before the unit; MySQL any expression.
          out.append(name.group()).append(" (").append(rewrite(sql.substring(end, unit), aliases)).append(") ");
          tokens.symbol(')');
          i = unit;
          continue;
        }
        boolean alias = aliases.contains(name.group().toLowerCase(Locale.ROOT)) && !call
            && !(tokens.previousIs("AS") && tokens.inCast()) && !tokens.atIntervalUnit();
        out.append(alias ? "`" + name.group() + "`" : switch (upper) {
          case "DIV" -> DIV_OPERATOR;
          case "MOD" -> call ? name.group() : "%";
          case "DAY" -> call ? "DAYOFMONTH" : name.group();
          case "DATETIME" -> "TIMESTAMP";
          default -> name.group();
        });
        tokens.word(name.group());
        i = end;
        continue;
      }
      tokens.symbol(c);
      out.append(c);
      i++;
    }
    return out.toString();
  }

  /**
   * Where the unit of the {@code INTERVAL} whose amount starts at {@code start} begins, when the amount is more than
   * one token ({@code INTERVAL ABS(n) DAY}, {@code INTERVAL NULL DAY} as MySQL reads it, {@code INTERVAL CASE ... END
   * HOUR}); -1 otherwise. The unit is the first unit word outside parentheses that is not a call ({@code INTERVAL
   * HOUR(x) DAY}).
   */
  private static int intervalUnit(String sql, int start) {
    int depth = 0;
    int tokens = 0;
    int i = start;
    while (i < sql.length()) {
      int skip = skipQuotedOrComment(sql, i);
      if (skip > i) {
        tokens += depth == 0 ? 1 : 0;
        i = skip;
        continue;
      }
      char c = sql.charAt(i);
      Matcher name = WORD.matcher(sql).region(i, sql.length());
      if (!isIdentifierChar(sql.charAt(i - 1)) && name.lookingAt()) {
        boolean call = OPEN_PARENTHESIS.matcher(sql).region(name.end(), sql.length()).lookingAt();
        if (depth == 0 && !call && INTERVAL_UNITS.contains(name.group().toUpperCase(Locale.ROOT))) {
          return tokens > 1 || (tokens == 1 && "NULL".equalsIgnoreCase(sql.substring(start, i).strip())) ? i : -1;
        }
        tokens += depth == 0 ? 1 : 0;
        i = name.end();
        continue;
      }
      if (c == '(') {
        tokens += depth == 0 ? 1 : 0;
        depth++;
      } else if (c == ')' || c == ',') {
        if (depth == 0) {
          return -1;
        }
        depth -= c == ')' ? 1 : 0;
      } else if (!Character.isWhitespace(c) && depth == 0 && !(Character.isDigit(c) || c == '.')) {
        tokens++;
      } else if ((Character.isDigit(c) || c == '.') && depth == 0 && (i == start
          || !(Character.isDigit(sql.charAt(i - 1)) || sql.charAt(i - 1) == '.'))) {
        tokens++;
      }
      i++;
    }
    return -1;
  }

  private static final Set<String> INTERVAL_UNITS = Set.of("MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK",
      "MONTH", "QUARTER", "YEAR");

  /**
   * The text of each argument of the call whose parenthesis opens at {@code open}, split at its top-level commas
   * (their lengths and the commas add up to the text before the closing parenthesis).
   */
  private static List<String> arguments(String sql, int open) {
    List<String> args = new ArrayList<>();
    int depth = 0;
    int start = open + 1;
    int i = start;
    while (i < sql.length()) {
      int skip = skipQuotedOrComment(sql, i);
      if (skip > i) {
        i = skip;
        continue;
      }
      char c = sql.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')' && depth-- == 0) {
        break;
      } else if (c == ',' && depth == 0) {
        args.add(sql.substring(start, i));
        start = i + 1;
      }
      i++;
    }
    args.add(sql.substring(start, i));
    return args;
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
