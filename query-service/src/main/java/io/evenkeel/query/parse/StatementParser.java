package io.evenkeel.query.parse;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.evenkeel.expr.Expr;
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
import org.apache.calcite.sql.SqlSetOperator;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlBasicVisitor;
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
  private final Subqueries subqueries;

  /** A statement's text after Calcite's parse; the tree is only read afterwards, so it can be shared. */
  private record Parsed(String rewritten, boolean explain, SqlNode node) {}

  /** Counts the SELECTs in a statement's tree. */
  private static final class SelectCounter extends SqlBasicVisitor<Void> {
    private int selects;

    @Override
    public Void visit(SqlCall call) {
      if (call instanceof SqlSelect) {
        selects++;
      }
      return super.visit(call);
    }
  }

  /**
   * Parsed statements by their text: clients send the same text again with other parameters, and Calcite's parse is
   * most of the planning of a small query. Bounded by the texts' length, so distinct long statements cannot fill the
   * heap.
   */
  private static final Cache<String, Parsed> PARSED = CacheBuilder.newBuilder()
      .maximumWeight(1 << 20).weigher((String text, Parsed parsed) -> text.length()).build();

  private StatementParser(String sql, List<Object> params, Subqueries subqueries) {
    this.sql = sql;
    this.params = params;
    this.subqueries = subqueries;
  }

  /** Deepest nesting of parentheses a statement may have. */
  public static final int MAX_NESTING = 100;
  /** The most SELECTs one statement may run: its own, its UNION parts' and its subqueries'. */
  public static final int MAX_SELECTS = 64;

  /**
   * Parses {@code text}, a SELECT without subqueries; {@code params} are the values of its {@code ?}s in order (Long,
   * BigDecimal, String, ...).
   */
  public static SelectStatement parse(String text, List<Object> params) {
    if (!(parse(text, params, Subqueries.NONE) instanceof SelectStatement select)) {
      throw QueryException.unsupported("UNION here");
    }
    return select;
  }

  /**
   * Parses {@code text}: a SELECT or a UNION of them; {@code params} are the values of its {@code ?}s in order (Long,
   * BigDecimal, String, ...), and {@code subqueries} runs its subqueries as they are met.
   */
  public static Statement parse(String text, List<Object> params, Subqueries subqueries) {
    if (text == null || text.isBlank()) {
      throw QueryException.invalid("the request has no SQL; send {\"sql\": \"SELECT ...\"}");
    }
    Parsed parsed = PARSED.getIfPresent(text);
    if (parsed == null) {
      requireNestingWithin(text, MAX_NESTING);
      parsed = parseText(text);
      PARSED.put(text, parsed);
    }
    StatementParser parser = new StatementParser(parsed.rewritten(), params == null ? List.of() : params,
        subqueries);
    return parser.statement(parsed.node(), parsed.explain(), List.of());
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

  /** Whether {@code text} asks for the plan ({@code EXPLAIN SELECT ...}) rather than the rows. */
  public static boolean isExplain(String text) {
    return text != null && EXPLAIN.matcher(text).matches();
  }

  private static Parsed parseText(String text) {
    var explain = EXPLAIN.matcher(text);
    boolean isExplain = explain.matches();
    String rewritten = MySqlSyntax.rewrite(isExplain ? explain.group(1) : text);
    try {
      SqlNode node = SqlParser.create(rewritten, CONFIG).parseQuery();
      SelectCounter counter = new SelectCounter();
      node.accept(counter);
      if (counter.selects > MAX_SELECTS) {
        throw QueryException.invalid("the statement has " + counter.selects + " SELECTs (UNION parts and "
            + "subqueries) and may have at most " + MAX_SELECTS);
      }
      return new Parsed(rewritten, isExplain, node);
    } catch (SqlParseException e) {
      if (e.getMessage() == null && e.getCause() instanceof StackOverflowError) {
        // Calcite's parser recursed out of stack (thousands of NOTs, say) and wrapped the error without a message.
        throw QueryException.invalid("the statement nests too deeply to parse");
      }
      throw QueryException.invalid("SQL syntax error: " + firstLine(String.valueOf(e.getMessage())));
    }
  }

  /**
   * A query: a SELECT or a UNION, with its ORDER BY, LIMIT and OFFSET. {@code enclosing}: the table aliases of the
   * queries a subquery is inside, innermost last (empty for the statement itself).
   */
  private Statement statement(SqlNode node, boolean explain, List<String> enclosing) {
    SqlNodeList orderList = null;
    SqlNode fetch = null;
    SqlNode offset = null;
    if (node instanceof SqlOrderBy orderBy) {
      orderList = orderBy.orderList;
      fetch = orderBy.fetch;
      offset = orderBy.offset;
      node = orderBy.query;
    }
    if (node.getKind() == SqlKind.UNION) {
      return union((SqlCall) node, orderList, fetch, offset, explain, enclosing);
    }
    if (!(node instanceof SqlSelect select)) {
      throw QueryException.unsupported(ExpressionTranslator.describe(node) + " (SELECT and UNION queries are)");
    }
    return select(select, orderList, fetch, offset, explain, enclosing);
  }

  private UnionStatement union(SqlCall union, SqlNodeList orderList, SqlNode fetch, SqlNode offset,
      boolean explain, List<String> enclosing) {
    Statement left = statement(union.operand(0), false, enclosing);
    Statement right = statement(union.operand(1), false, enclosing);
    List<String> labels = left.labels();
    if (labels.size() != right.labels().size()) {
      throw QueryException.invalid("the SELECTs of a UNION have different numbers of columns: " + labels.size()
          + " and " + right.labels().size());
    }
    List<UnionStatement.Order> orderBy = new ArrayList<>();
    if (orderList != null) {
      for (SqlNode key : orderList) {
        boolean descending = key.getKind() == SqlKind.DESCENDING;
        orderBy.add(new UnionStatement.Order(unionColumn(descending ? ((SqlCall) key).operand(0) : key, labels),
            descending));
      }
    }
    Long limit = fetch == null ? null : count(fetch, "LIMIT");
    long skip = offset == null ? 0 : count(offset, "OFFSET");
    return new UnionStatement(left, right, ((SqlSetOperator) union.getOperator()).isAll(), orderBy, limit, skip,
        explain);
  }

  /** An ORDER BY key of a UNION: an output column's name (as the first SELECT names it) or position. */
  private static int unionColumn(SqlNode key, List<String> labels) {
    if (key instanceof SqlNumericLiteral number && number.isExact()) {
      int ordinal = number.intValue(true);
      if (ordinal < 1 || ordinal > labels.size()) {
        throw QueryException.invalid("ORDER BY position " + ordinal + " is not in the UNION's columns (1.."
            + labels.size() + ")");
      }
      return ordinal - 1;
    }
    if (key instanceof SqlIdentifier identifier && identifier.names.size() == 1) {
      for (int i = 0; i < labels.size(); i++) {
        if (labels.get(i).equalsIgnoreCase(identifier.getSimple())) {
          return i;
        }
      }
    }
    throw QueryException.invalid("the ORDER BY of a UNION names one of its columns " + labels
        + " or a position; got: " + key);
  }

  private SelectStatement select(SqlSelect select, SqlNodeList orderList, SqlNode fetch, SqlNode offset,
      boolean explain, List<String> enclosing) {
    String alias = from(select.getFrom());
    ExpressionTranslator expressions = new ExpressionTranslator(sql, alias, enclosing, this::param,
        (node, use) -> subquery(node, use, append(enclosing, alias)));
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

  /**
   * The rows of a subquery, run at once: as many as {@code use} needs to tell its value, at most. An IN subquery is
   * asked for its distinct values, and one more than an IN list may hold, so that too many is found without reading
   * them all.
   */
  private List<List<Object>> subquery(SqlNode node, ExpressionTranslator.SubqueryUse use, List<String> enclosing) {
    Statement inner = statement(node, false, enclosing);
    if (use != ExpressionTranslator.SubqueryUse.EXISTS && inner.labels().size() != 1) {
      throw QueryException.invalid("a subquery " + (use == ExpressionTranslator.SubqueryUse.IN ? "in IN" : "used as a"
          + " value") + " returns one column; this one returns " + inner.labels().size() + ": " + inner.labels());
    }
    inner = switch (use) {
      case IN -> {
        if (inner instanceof SelectStatement select && select.limit() != null
            || inner instanceof UnionStatement union && union.limit() != null) {
          throw QueryException.unsupported("LIMIT in an IN subquery (as in MySQL and MariaDB)");
        }
        Statement values = inner instanceof SelectStatement select ? (select.isAggregate() ? select : distinct(select))
            : distinct((UnionStatement) inner);
        yield limitedTo(values, ExpressionTranslator.MAX_IN_VALUES + 1);
      }
      case SCALAR -> limitedTo(inner, 2);
      case EXISTS -> limitedTo(inner, 1);
    };
    return subqueries.rows(inner);
  }

  private static Statement limitedTo(Statement statement, long rows) {
    return statement instanceof SelectStatement select ? select.limitedTo(rows)
        : ((UnionStatement) statement).limitedTo(rows);
  }

  /** {@code SELECT DISTINCT} of the same items (their order does not matter to IN). */
  private static SelectStatement distinct(SelectStatement select) {
    return new SelectStatement(select.items(), true, select.where(),
        select.items().stream().map(SelectItem::expr).toList(), null, List.of(), select.limit(), select.offset(),
        false);
  }

  /** A UNION that removes duplicates: as the last union of a chain is distinct, so is all of it. */
  private static UnionStatement distinct(UnionStatement union) {
    return new UnionStatement(union.left(), union.right(), false, List.of(), union.limit(), union.offset(), false);
  }

  private static List<String> append(List<String> list, String alias) {
    if (alias == null) {
      return list;
    }
    List<String> longer = new ArrayList<>(list);
    longer.add(alias);
    return longer;
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
