package io.evenkeel.query.parse;

import io.evenkeel.expr.AggregateFunction;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlBetweenOperator;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.NlsString;

/**
 * Calcite's expression nodes to an {@link Expr} tree: accepts exactly the supported operators, functions and
 * literals and rejects the rest with a 400 naming the construct. One instance per statement: columns may be qualified
 * by the table or its alias, {@code ?} parameters come bound from the statement, and in HAVING and ORDER BY a name
 * may be a select alias.
 */
final class ExpressionTranslator {
  /** Values an IN list may hold. */
  public static final int MAX_IN_VALUES = 10_000;

  /** What a subquery's answer is used as. */
  enum SubqueryUse { IN, SCALAR, EXISTS }

  /** Runs a subquery met in an expression: its answer's rows, as many as its use needs. */
  @FunctionalInterface
  interface SubqueryRunner {
    List<List<Object>> rows(SqlNode query, SubqueryUse use);
  }

  private final String sql;
  private final String tableAlias;
  private final List<String> enclosingAliases;
  private final IntFunction<Object> params;
  private final SubqueryRunner subqueries;
  /** The select list while converting HAVING and ORDER BY, whose names may be select aliases. */
  private List<SelectItem> aliases = List.of();

  /**
   * @param sql the statement's text, for the text of a node as written
   * @param tableAlias the alias of the table in FROM, or null
   * @param enclosingAliases in a subquery, the table aliases of the queries it is inside
   * @param params the value of the {@code ?} parameter at an index (0-based)
   * @param subqueries runs the subqueries the expressions hold
   */
  ExpressionTranslator(String sql, String tableAlias, List<String> enclosingAliases, IntFunction<Object> params,
      SubqueryRunner subqueries) {
    this.sql = sql;
    this.tableAlias = tableAlias;
    this.enclosingAliases = enclosingAliases;
    this.params = params;
    this.subqueries = subqueries;
  }

  /** HAVING and ORDER BY may name select aliases (MySQL), as long as no column has that name. */
  Expr withAliases(SqlNode node, List<SelectItem> items) {
    List<SelectItem> previous = aliases;
    aliases = items;
    try {
      return expr(node);
    } finally {
      aliases = previous;
    }
  }

  /** One expression of the statement as an {@link Expr}. */
  Expr expr(SqlNode node) {
    if (node instanceof SqlIdentifier identifier) {
      return column(identifier);
    }
    if (node instanceof SqlDynamicParam param) {
      return new Expr.Literal(params.apply(param.getIndex()));
    }
    if (node instanceof SqlLiteral literal) {
      return literal(literal);
    }
    if (node instanceof SqlNodeList) {
      throw QueryException.unsupported("a row value or list here: " + text(node));
    }
    if (!(node instanceof SqlCall call)) {
      throw QueryException.unsupported(describe(node));
    }
    return switch (call.getKind()) {
      case AND -> new Expr.Call(Op.AND, args(call));
      case OR -> new Expr.Call(Op.OR, args(call));
      case NOT -> Expr.Call.of(Op.NOT, expr(call.operand(0)));
      case EQUALS -> binary(Op.EQ, call);
      case NOT_EQUALS -> binary(Op.NE, call);
      case IS_NOT_DISTINCT_FROM -> binary(Op.NULL_SAFE_EQ, call);
      case IS_DISTINCT_FROM -> Expr.Call.of(Op.NOT, binary(Op.NULL_SAFE_EQ, call));
      case LESS_THAN -> binary(Op.LT, call);
      case LESS_THAN_OR_EQUAL -> binary(Op.LE, call);
      case GREATER_THAN -> binary(Op.GT, call);
      case GREATER_THAN_OR_EQUAL -> binary(Op.GE, call);
      case PLUS, MINUS -> plusOrMinus(call);
      case TIMES -> binary(Op.TIMES, call);
      case DIVIDE -> binary(Op.DIVIDE, call);
      case MINUS_PREFIX -> Expr.Call.of(Op.NEGATE, expr(call.operand(0)));
      case PLUS_PREFIX -> expr(call.operand(0));
      case IS_NULL -> Expr.Call.of(Op.IS_NULL, expr(call.operand(0)));
      case IS_NOT_NULL -> Expr.Call.of(Op.IS_NOT_NULL, expr(call.operand(0)));
      case BETWEEN -> between(call);
      case IN, NOT_IN -> in(call);
      case LIKE -> like(call);
      case MOD -> binary(Op.MOD, call);
      case CASE -> caseWhen((SqlCase) call);
      case CAST -> {
        if (!(call.operand(1) instanceof SqlDataTypeSpec type)) {
          throw QueryException.unsupported("CAST to " + call.operand(1));
        }
        yield ScalarFunctions.cast(expr(call.operand(0)), type);
      }
      case FLOOR, CEIL -> floorOrCeil(call);
      case TRIM -> trim(call);
      case POSITION -> new Expr.Call(Op.LOCATE, args(call));
      case INTERVAL -> interval(expr(call.operand(0)), (SqlIntervalQualifier) call.operand(1));
      case OTHER_FUNCTION, COALESCE, NULLIF, GREATEST, LEAST, IF, CHAR_LENGTH -> function(call);
      case OTHER -> {
        if (!call.getOperator().getName().equals(MySqlSyntax.DIV_OPERATOR)) {
          throw QueryException.unsupported(describe(node));
        }
        yield binary(Op.DIV, call);
      }
      case TRANSLATE -> convertUsing(call);
      case SELECT, UNION, ORDER_BY -> scalar(node);
      case EXISTS -> new Expr.Literal(!subqueries.rows(call.operand(0), SubqueryUse.EXISTS).isEmpty());
      case INTERSECT, EXCEPT, SCALAR_QUERY -> throw QueryException.unsupported(describe(node));
      default -> throw QueryException.unsupported(describe(node));
    };
  }

  /** {@code a + b}, {@code a - b}; with an INTERVAL, MySQL's {@code date + INTERVAL n unit} (DATE_ADD). */
  private Expr plusOrMinus(SqlCall call) {
    boolean plus = call.getKind() == SqlKind.PLUS;
    Expr left = expr(call.operand(0));
    Expr right = expr(call.operand(1));
    if (plus && isInterval(left) && !isInterval(right)) {
      return ScalarFunctions.call("DATE_ADD", List.of(right, left)).orElseThrow();
    }
    if (isInterval(right) && !isInterval(left)) {
      return ScalarFunctions.call(plus ? "DATE_ADD" : "DATE_SUB", List.of(left, right)).orElseThrow();
    }
    return Expr.Call.of(plus ? Op.PLUS : Op.MINUS, left, right);
  }

  private static boolean isInterval(Expr expr) {
    return expr instanceof Expr.Call call && call.op() == Op.INTERVAL;
  }

  /** {@code CONVERT(x USING charset)}: text is UTF-8 throughout, so to utf8mb4 (or utf8) it is the text itself. */
  private Expr convertUsing(SqlCall call) {
    String charset = call.operand(1).toString().replace("`", "").toLowerCase(Locale.ROOT);
    if (!charset.equals("utf8mb4")) {
      throw QueryException.unsupported("CONVERT(... USING " + charset + ") (text is utf8mb4: USING utf8mb4)");
    }
    return expr(call.operand(0));
  }

  private Expr binary(Op op, SqlCall call) {
    return Expr.Call.of(op, expr(call.operand(0)), expr(call.operand(1)));
  }

  private List<Expr> args(SqlCall call) {
    List<Expr> args = new ArrayList<>();
    for (SqlNode operand : call.getOperandList()) {
      args.add(expr(operand));
    }
    return args;
  }

  private Expr between(SqlCall call) {
    SqlBetweenOperator operator = (SqlBetweenOperator) call.getOperator();
    if (operator.flag == SqlBetweenOperator.Flag.SYMMETRIC) {
      throw QueryException.unsupported("BETWEEN SYMMETRIC");
    }
    Expr between = Expr.Call.of(Op.BETWEEN, expr(call.operand(0)), expr(call.operand(1)), expr(call.operand(2)));
    return operator.isNegated() ? Expr.Call.of(Op.NOT, between) : between;
  }

  private Expr in(SqlCall call) {
    if (!(call.operand(1) instanceof SqlNodeList list)) {
      return inSubquery(call);
    }
    if (list.size() > MAX_IN_VALUES) {
      throw QueryException.invalid("an IN list has " + list.size() + " values; at most " + MAX_IN_VALUES);
    }
    List<Expr> args = new ArrayList<>();
    args.add(expr(call.operand(0)));
    for (SqlNode item : list) {
      args.add(expr(item));
    }
    Expr in = new Expr.Call(Op.IN, args);
    return call.getKind() == SqlKind.NOT_IN ? Expr.Call.of(Op.NOT, in) : in;
  }

  /**
   * {@code x IN (SELECT ...)}: {@code x IN (its values)}, with MySQL's NULLs (a NULL among them makes a miss NULL);
   * over no values it is FALSE, even for a NULL {@code x}.
   */
  private Expr inSubquery(SqlCall call) {
    Expr value = expr(call.operand(0));
    List<List<Object>> rows = subqueries.rows(call.operand(1), SubqueryUse.IN);
    if (rows.size() > MAX_IN_VALUES) {
      throw QueryException.invalid("the subquery of IN has more than " + MAX_IN_VALUES + " distinct values, the most "
          + "an IN list may hold; narrow its WHERE clause");
    }
    Expr in;
    if (rows.isEmpty()) {
      in = new Expr.Literal(false);
    } else {
      List<Expr> args = new ArrayList<>();
      args.add(value);
      rows.forEach(row -> args.add(new Expr.Literal(row.get(0))));
      in = new Expr.Call(Op.IN, args);
    }
    return call.getKind() == SqlKind.NOT_IN ? Expr.Call.of(Op.NOT, in) : in;
  }

  /** A subquery used as a value: its one value, NULL when it has no rows, a 400 when it has more than one. */
  private Expr scalar(SqlNode query) {
    List<List<Object>> rows = subqueries.rows(query, SubqueryUse.SCALAR);
    if (rows.size() > 1) {
      throw QueryException.invalid("a subquery used as a value returned more than one row: " + text(query));
    }
    return rows.isEmpty() ? Expr.Literal.NULL : new Expr.Literal(rows.get(0).get(0));
  }

  private Expr like(SqlCall call) {
    SqlLikeOperator operator = (SqlLikeOperator) call.getOperator();
    if (call.operandCount() > 2) {
      throw QueryException.unsupported("LIKE ... ESCAPE (the escape character is \\)");
    }
    if (!operator.getName().toUpperCase(Locale.ROOT).endsWith("LIKE")) {
      throw QueryException.unsupported(operator.getName());
    }
    Expr like = binary(Op.LIKE, call);
    return operator.isNegated() ? Expr.Call.of(Op.NOT, like) : like;
  }

  private Expr function(SqlCall call) {
    String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
    boolean distinct = call instanceof SqlBasicCall basic && basic.getFunctionQuantifier() != null
        && "DISTINCT".equalsIgnoreCase(String.valueOf(basic.getFunctionQuantifier().getValue()));
    switch (name) {
      case "COUNT", "SUM", "AVG", "MIN", "MAX" -> {
        return aggregate(AggregateFunction.valueOf(name), distinct, call);
      }
      default -> {
        if (distinct) {
          throw QueryException.unsupported(name + "(DISTINCT ...)");
        }
      }
    }
    List<Expr> args = args(call);
    return switch (name) {
      case "FROM_UNIXTIME" -> new Expr.Call(Op.FROM_UNIXTIME, arity(name + " (with one argument)", args, 1));
      case "DATE_FORMAT" -> new Expr.Call(Op.DATE_FORMAT, arity(name, args, 2));
      case "ATTR" -> attr(args);
      case MySqlSyntax.MATCH_FUNCTION -> match(args);
      default -> ScalarFunctions.call(name, args).orElseThrow(() -> QueryException.unsupported("function " + name
          + " (functions are " + ScalarFunctions.NAMES + ")"));
    };
  }

  /** Searched CASE; a simple one ({@code CASE x WHEN v ...}) compares {@code x = v}, so NULL matches nothing. */
  private Expr caseWhen(SqlCase node) {
    Expr value = node.getValueOperand() == null ? null : expr(node.getValueOperand());
    List<Expr> args = new ArrayList<>();
    for (int i = 0; i < node.getWhenOperands().size(); i++) {
      Expr when = expr(node.getWhenOperands().get(i));
      args.add(value == null ? when : Expr.Call.of(Op.EQ, value, when));
      args.add(expr(node.getThenOperands().get(i)));
    }
    args.add(node.getElseOperand() == null ? Expr.Literal.NULL : expr(node.getElseOperand()));
    return ScalarFunctions.temporal(Op.CASE, args);
  }

  private Expr floorOrCeil(SqlCall call) {
    if (call.operandCount() != 1) {
      throw QueryException.unsupported(call.getKind() + " to a unit of time");
    }
    return Expr.Call.of(call.getKind() == SqlKind.FLOOR ? Op.FLOOR : Op.CEIL, expr(call.operand(0)));
  }

  /** {@code INTERVAL n unit} (MySQL's form; the standard's {@code INTERVAL '1' DAY} is a literal). */
  private static Expr interval(Expr amount, SqlIntervalQualifier unit) {
    if (unit.getStartUnit() != unit.getEndUnit() && unit.getEndUnit() != null) {
      throw QueryException.unsupported("INTERVAL ... " + unit + " (one unit: INTERVAL 90 MINUTE)");
    }
    return Expr.Call.of(Op.INTERVAL, amount, new Expr.Literal(unit.getStartUnit().name()));
  }

  /** {@code TRIM([BOTH | LEADING | TRAILING] [remove] FROM text)}; the parser supplies BOTH and ' '. */
  private Expr trim(SqlCall call) {
    SqlTrimFunction.Flag where = ((SqlLiteral) call.operand(0)).getValueAs(SqlTrimFunction.Flag.class);
    return ScalarFunctions.trim(where.name(), expr(call.operand(1)), expr(call.operand(2)));
  }

  private Expr aggregate(AggregateFunction function, boolean distinct, SqlCall call) {
    if (call.operandCount() != 1) {
      throw QueryException.unsupported(function + " with " + call.operandCount() + " arguments");
    }
    SqlNode operand = call.operand(0);
    if (operand instanceof SqlIdentifier identifier && identifier.isStar()) {
      if (function != AggregateFunction.COUNT || distinct) {
        throw QueryException.invalid(function + "(" + (distinct ? "DISTINCT " : "") + "*) is not valid; "
            + "only COUNT(*) is");
      }
      return new Expr.Aggregate(function, false, null);
    }
    Expr arg = expr(operand);
    if (arg.hasAggregate()) {
      throw QueryException.invalid("aggregate functions cannot be nested: " + text(call));
    }
    if (distinct && function != AggregateFunction.COUNT) {
      throw QueryException.unsupported(function + "(DISTINCT ...) (COUNT(DISTINCT ...) is supported)");
    }
    return new Expr.Aggregate(function, distinct, arg);
  }

  private static Expr attr(List<Expr> args) {
    if (args.size() != 1 || !(args.get(0) instanceof Expr.Literal key && key.value() instanceof String name)) {
      throw QueryException.invalid("attr takes one string literal, the attribute key: attr('color')");
    }
    if (name.isEmpty() || name.contains(";") || name.contains(":")) {
      throw QueryException.invalid("an attribute key is non-empty and has no ';' or ':'; got: '" + name + "'");
    }
    return new Expr.Attr(name);
  }

  private static Expr match(List<Expr> args) {
    if (!(args.get(0) instanceof Expr.Column column)) {
      throw QueryException.invalid("MATCH takes a column: MATCH(title) AGAINST('words')");
    }
    Column type = TransactionLogsTable.require(column.name());
    if (type.type() != io.evenkeel.schemas.table.ColumnType.TEXT) {
      throw QueryException.invalid("MATCH needs a full-text column; " + column.name() + " is " + type.type()
          + " (use = or LIKE)");
    }
    if (!(args.get(1) instanceof Expr.Literal text && text.value() instanceof String)) {
      throw QueryException.invalid("AGAINST takes a string: MATCH(title) AGAINST('words')");
    }
    return new Expr.Call(Op.MATCH, args);
  }

  private static List<Expr> arity(String name, List<Expr> args, int expected) {
    if (args.size() != expected) {
      throw QueryException.invalid(name + " takes " + expected + " arguments; got " + args.size());
    }
    return args;
  }

  private Expr column(SqlIdentifier identifier) {
    if (identifier.isStar()) {
      throw QueryException.invalid("* is allowed only as a select item or in COUNT(*)");
    }
    if (identifier.names.size() > 2) {
      throw QueryException.invalid("unknown column '" + identifier + "'");
    }
    if (identifier.names.size() == 2) {
      qualifier(identifier.names.get(0), identifier);
    }
    String name = identifier.names.get(identifier.names.size() - 1);
    String lower = name.toLowerCase(Locale.ROOT);
    if (TransactionLogsTable.column(lower).isPresent()) {
      return new Expr.Column(lower);
    }
    if (identifier.names.size() == 1) {
      for (SelectItem item : aliases) {
        if (item.label().equalsIgnoreCase(name)) {
          return item.expr();
        }
      }
    }
    try {
      TransactionLogsTable.require(name);
    } catch (IllegalArgumentException e) {
      throw QueryException.invalid(e.getMessage());
    }
    throw new IllegalStateException("unreachable: " + name);
  }

  /** Checks that a qualifier ({@code t.price}, {@code t.*}) names the table or its alias. */
  void qualifier(String qualifier, SqlIdentifier identifier) {
    if (!qualifier.equalsIgnoreCase(TransactionLogsTable.NAME) && !qualifier.equalsIgnoreCase(tableAlias)
        && enclosingAliases.stream().anyMatch(qualifier::equalsIgnoreCase)) {
      throw QueryException.unsupported("a correlated subquery (" + identifier + " reads the enclosing query's row; "
          + "a subquery must stand alone)");
    }
    if (!qualifier.equalsIgnoreCase(TransactionLogsTable.NAME) && !qualifier.equalsIgnoreCase(tableAlias)) {
      throw QueryException.invalid("unknown table '" + qualifier + "' in " + identifier + "; the table is "
          + TransactionLogsTable.NAME + (tableAlias == null ? "" : " (alias " + tableAlias + ")"));
    }
  }

  private static Expr literal(SqlLiteral literal) {
    if (literal instanceof SqlNumericLiteral number) {
      if (!number.isExact()) {
        throw QueryException.unsupported("the approximate number " + number + " (write it as an exact decimal)");
      }
      return new Expr.Literal(exactNumber(number.getValueAs(BigDecimal.class)));
    }
    Object value = literal.getValue();
    if (value == null) {
      return Expr.Literal.NULL;
    }
    if (value instanceof NlsString text) {
      return new Expr.Literal(text.getValue());
    }
    if (value instanceof Boolean truth) {
      return new Expr.Literal(truth);
    }
    if (literal instanceof SqlIntervalLiteral) {
      SqlIntervalLiteral.IntervalValue interval = literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
      try {
        long amount = interval.getSign() * Long.parseLong(interval.getIntervalLiteral().trim());
        return interval(new Expr.Literal(amount), interval.getIntervalQualifier());
      } catch (NumberFormatException e) {
        throw QueryException.unsupported("the interval " + literal + " (write INTERVAL 90 MINUTE)");
      }
    }
    throw QueryException.unsupported("the literal " + literal + " (" + literal.getTypeName() + ")");
  }

  /** Integers that fit are Longs (MySQL's BIGINT); anything else stays an exact decimal. */
  static Object exactNumber(BigDecimal value) {
    return value.scale() <= 0 ? SqlValues.integer(value) : value;
  }

  /** The SQL text of a node as written (the column name MySQL would give an unaliased expression). */
  String text(SqlNode node) {
    SqlParserPos pos = node.getParserPosition();
    String[] lines = sql.split("\n", -1);
    try {
      if (pos.getLineNum() == pos.getEndLineNum()) {
        return lines[pos.getLineNum() - 1].substring(pos.getColumnNum() - 1, pos.getEndColumnNum());
      }
      StringBuilder text = new StringBuilder(lines[pos.getLineNum() - 1].substring(pos.getColumnNum() - 1));
      for (int line = pos.getLineNum() + 1; line < pos.getEndLineNum(); line++) {
        text.append('\n').append(lines[line - 1]);
      }
      return text.append('\n').append(lines[pos.getEndLineNum() - 1], 0, pos.getEndColumnNum()).toString();
    } catch (IndexOutOfBoundsException e) {
      return node.toString();
    }
  }

  /** A node's construct, for messages: "UNION", "the operator LIKE". */
  static String describe(SqlNode node) {
    if (node instanceof SqlCall call) {
      String name = call.getOperator().getName();
      return switch (call.getKind()) {
        case UNION -> "UNION";
        case INTERSECT -> "INTERSECT";
        case EXCEPT -> "EXCEPT";
        case WITH -> "WITH";
        case INSERT, UPDATE, DELETE, MERGE -> call.getKind().name() + " (the service only reads)";
        case VALUES -> "VALUES";
        case SELECT -> "a subquery";
        default -> name.isBlank() ? call.getKind().name() : "the operator " + name;
      };
    }
    return node.getKind().name();
  }
}
