package io.evenkeel.query.parse;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.evenkeel.query.expr.Expr;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.calcite.config.Lex;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.validate.SqlConformanceEnum;

/**
 * SQL text to a {@link SelectStatement}: Calcite's parser with MySQL's lexical rules (backquoted identifiers,
 * case-insensitive names), then a conversion of the statement's clauses that accepts exactly the supported dialect
 * and rejects the rest with a 400 naming the construct; the {@link ExpressionTranslator} converts the expressions in
 * them. Columns are checked against {@link TransactionLogsTable}; {@code ?} parameters are bound from {@code params}.
 */
public final class StatementParser {
  private static final BigDecimal MAX_UNSIGNED_64 = new BigDecimal("18446744073709551615");
  private static final SqlParser.Config CONFIG =
      SqlParser.config().withLex(Lex.MYSQL).withConformance(SqlConformanceEnum.MYSQL_5);
  private static final Pattern EXPLAIN = Pattern.compile("(?is)^\\s*EXPLAIN\\s+(.*)$");

  private final String sql;
  private final List<Object> params;

  /** A statement's text after Calcite's parse; the tree is only read afterwards, so it can be shared. */
  private record Parsed(String rewritten, boolean explain, SqlNode node) {}

  /**
   * Parsed statements by their text: clients send the same text again with other parameters, and Calcite's parse is
   * most of the planning of a small query. Bounded by the texts' length, so distinct long statements cannot fill the
   * heap.
   */
  private static final Cache<String, Parsed> PARSED = CacheBuilder.newBuilder()
      .maximumWeight(1 << 20).weigher((String text, Parsed parsed) -> text.length()).build();

  private StatementParser(String sql, List<Object> params) {
    this.sql = sql;
    this.params = params;
  }

  /** Parses {@code text}; {@code params} are the values of its {@code ?}s in order (Long, BigDecimal, String, ...). */
  /** Deepest nesting of parentheses a statement may have. */
  public static final int MAX_NESTING = 100;

  public static SelectStatement parse(String text, List<Object> params) {
    if (text == null || text.isBlank()) {
      throw QueryException.invalid("the request has no SQL; send {\"sql\": \"SELECT ...\"}");
    }
    Parsed parsed = PARSED.getIfPresent(text);
    if (parsed == null) {
      requireNestingWithin(text, MAX_NESTING);
      parsed = parseText(text);
      PARSED.put(text, parsed);
    }
    StatementParser parser = new StatementParser(parsed.rewritten(), params == null ? List.of() : params);
    return parser.statement(parsed.node(), parsed.explain());
  }

  /**
   * Refuses parentheses nested deeper than {@code max} (outside quoted strings and names): the parser and every
   * step after it recurse over the expression, and thousands of levels would overflow a thread's stack.
   */
  static void requireNestingWithin(String text, int max) {
    int depth = 0;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
      } else if (c == '(' && ++depth > max) {
        throw QueryException.invalid("the statement nests parentheses more than " + max + " deep");
      } else if (c == ')') {
        depth--;
      }
    }
  }

  private static Parsed parseText(String text) {
    var explain = EXPLAIN.matcher(text);
    boolean isExplain = explain.matches();
    String rewritten = MatchAgainstRewriter.rewrite(isExplain ? explain.group(1) : text);
    try {
      return new Parsed(rewritten, isExplain, SqlParser.create(rewritten, CONFIG).parseQuery());
    } catch (SqlParseException e) {
      if (e.getMessage() == null && e.getCause() instanceof StackOverflowError) {
        // Calcite's parser recursed out of stack (thousands of NOTs, say) and wrapped the error without a message.
        throw QueryException.invalid("the statement nests too deeply to parse");
      }
      throw QueryException.invalid("SQL syntax error: " + firstLine(String.valueOf(e.getMessage())));
    }
  }

  private SelectStatement statement(SqlNode node, boolean explain) {
    SqlNodeList orderList = null;
    SqlNode fetch = null;
    SqlNode offset = null;
    if (node instanceof SqlOrderBy orderBy) {
      orderList = orderBy.orderList;
      fetch = orderBy.fetch;
      offset = orderBy.offset;
      node = orderBy.query;
    }
    if (!(node instanceof SqlSelect select)) {
      throw QueryException.unsupported(ExpressionTranslator.describe(node) + " (only SELECT queries are)");
    }
    ExpressionTranslator expressions = new ExpressionTranslator(sql, from(select.getFrom()), this::param);
    if (select.getOrderList() != null && select.getOrderList().size() > 0) {
      orderList = select.getOrderList();
    }
    fetch = fetch != null ? fetch : select.getFetch();
    offset = offset != null ? offset : select.getOffset();
    if (select.getWindowList() != null && select.getWindowList().size() > 0) {
      throw QueryException.unsupported("WINDOW");
    }
    if (select.getQualify() != null) {
      throw QueryException.unsupported("QUALIFY");
    }

    List<SelectItem> items = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      selectItem(item, items, expressions);
    }
    Expr where = select.getWhere() == null ? null : expressions.expr(select.getWhere());
    if (where != null && where.hasAggregate()) {
      throw QueryException.invalid("aggregate functions are not allowed in WHERE (use HAVING): " + where);
    }
    List<Expr> groupBy = new ArrayList<>();
    if (select.getGroup() != null) {
      for (SqlNode key : select.getGroup()) {
        Expr expr = resolveOutputReference(key, items, "GROUP BY", expressions);
        if (expr.hasAggregate()) {
          throw QueryException.invalid("cannot GROUP BY an aggregate: " + expr);
        }
        groupBy.add(expr);
      }
    }
    Expr having = select.getHaving() == null ? null : expressions.withAliases(select.getHaving(), items);
    List<OrderItem> orderBy = new ArrayList<>();
    if (orderList != null) {
      for (SqlNode key : orderList) {
        boolean descending = false;
        if (key.getKind() == SqlKind.DESCENDING) {
          descending = true;
          key = ((SqlCall) key).operand(0);
        }
        if (key.getKind() == SqlKind.NULLS_FIRST || key.getKind() == SqlKind.NULLS_LAST) {
          throw QueryException.unsupported("NULLS FIRST / NULLS LAST (NULL sorts first ascending, last descending)");
        }
        orderBy.add(new OrderItem(resolveOutputReference(key, items, "ORDER BY", expressions), descending));
      }
    }
    if (select.isDistinct()) {
      if (!groupBy.isEmpty() || having != null || items.stream().anyMatch(item -> item.expr().hasAggregate())) {
        throw QueryException.unsupported("SELECT DISTINCT with GROUP BY, HAVING or aggregates");
      }
      // SELECT DISTINCT a, b is GROUP BY a, b: one output row per distinct combination.
      items.forEach(item -> groupBy.add(item.expr()));
    }
    Long limit = fetch == null ? null : count(fetch, "LIMIT");
    long skip = offset == null ? 0 : count(offset, "OFFSET");
    SelectStatement statement = new SelectStatement(items, select.isDistinct(), where, groupBy, having, orderBy, limit,
        skip, explain);
    if (statement.isAggregate()) {
      GroupingCheck.check(statement);
    }
    return statement;
  }

  /** Checks that FROM reads the one table; returns its alias, or null. */
  private static String from(SqlNode from) {
    if (from == null) {
      throw QueryException.invalid("a query must read FROM " + TransactionLogsTable.NAME);
    }
    String alias = null;
    if (from.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) from;
      alias = ((SqlIdentifier) as.operand(1)).getSimple();
      from = as.operand(0);
    }
    if (from.getKind() == SqlKind.JOIN) {
      throw QueryException.unsupported("JOIN (queries read the one table " + TransactionLogsTable.NAME + ")");
    }
    if (!(from instanceof SqlIdentifier table)) {
      throw QueryException.unsupported(ExpressionTranslator.describe(from) + " in FROM (queries read the one table "
          + TransactionLogsTable.NAME + ")");
    }
    String name = table.names.get(table.names.size() - 1);
    if (!name.equalsIgnoreCase(TransactionLogsTable.NAME)) {
      throw QueryException.invalid("unknown table '" + table + "'; the table is " + TransactionLogsTable.NAME);
    }
    return alias;
  }

  private static void selectItem(SqlNode item, List<SelectItem> items, ExpressionTranslator expressions) {
    String alias = null;
    if (item.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) item;
      alias = ((SqlIdentifier) as.operand(1)).getSimple();
      item = as.operand(0);
    }
    if (item instanceof SqlIdentifier identifier && identifier.isStar()) {
      if (identifier.names.size() > 1) {
        expressions.qualifier(identifier.names.get(0), identifier);
      }
      for (Column column : TransactionLogsTable.COLUMNS) {
        items.add(new SelectItem(new Expr.Column(column.name()), column.name()));
      }
      return;
    }
    Expr expr = expressions.expr(item);
    String label = alias != null ? alias : expr instanceof Expr.Column column ? column.name() : expressions.text(item);
    items.add(new SelectItem(expr, label));
  }

  /** An ORDER BY / GROUP BY key: a select alias, an ordinal (1-based), or an expression. */
  private static Expr resolveOutputReference(SqlNode key, List<SelectItem> items, String clause,
      ExpressionTranslator expressions) {
    if (key instanceof SqlNumericLiteral number && number.isExact()) {
      int ordinal = number.intValue(true);
      if (ordinal < 1 || ordinal > items.size()) {
        throw QueryException.invalid(clause + " position " + ordinal + " is not in the select list (1.."
            + items.size() + ")");
      }
      return items.get(ordinal - 1).expr();
    }
    if (key instanceof SqlIdentifier identifier && identifier.names.size() == 1) {
      String name = identifier.getSimple();
      if (TransactionLogsTable.column(name.toLowerCase(Locale.ROOT)).isEmpty()) {
        for (SelectItem item : items) {
          if (item.label().equalsIgnoreCase(name)) {
            return item.expr();
          }
        }
      }
    }
    return expressions.withAliases(key, items);
  }

  /** The value of the {@code ?} at {@code index} (0-based), as the expression types hold it. */
  private Object param(int index) {
    if (index >= params.size()) {
      throw QueryException.invalid("the query has a ? parameter number " + (index + 1) + " but params has "
          + params.size() + " values");
    }
    Object value = params.get(index);
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger big) {
      return big.bitLength() < 64 ? (Object) big.longValue() : new BigDecimal(big);
    }
    if (value instanceof Double || value instanceof Float) {
      return ExpressionTranslator.exactNumber(new BigDecimal(value.toString()));
    }
    if (value instanceof BigDecimal decimal) {
      return ExpressionTranslator.exactNumber(decimal);
    }
    if (value == null || value instanceof Long || value instanceof String || value instanceof Boolean) {
      return value;
    }
    throw QueryException.invalid("parameter " + (index + 1) + " must be a number, a string, a boolean or null; got "
        + value);
  }

  /**
   * A LIMIT or OFFSET: as in MySQL, any unsigned 64-bit integer. Past {@link Long#MAX_VALUE} it counts as that: no
   * table holds more rows, so the answer is the same.
   */
  private static long count(SqlNode node, String clause) {
    if (node instanceof SqlNumericLiteral number && number.isExact()) {
      BigDecimal value = number.getValueAs(BigDecimal.class);
      if (value.signum() >= 0 && value.scale() <= 0 && value.compareTo(MAX_UNSIGNED_64) <= 0) {
        return value.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValueExact();
      }
    }
    throw QueryException.invalid(clause + " takes an integer from 0 to " + MAX_UNSIGNED_64.toPlainString()
        + "; got: " + node);
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
