package io.evenkeel.query.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.expr.Expr;
import io.evenkeel.query.result.QueryException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementParserTest {
  private static SelectStatement parse(String sql, Object... params) {
    return StatementParser.parse(sql, Arrays.asList(params));
  }

  private static void rejects(String sql, String message) {
    assertThatThrownBy(() -> parse(sql))
        .isInstanceOf(QueryException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((QueryException) e).status()).isEqualTo(400));
  }

  @Test
  void selectStarExpandsToSchemaOrder() {
    assertThat(parse("select * from transaction_logs").items()).extracting(SelectItem::label).containsExactly(
        "tenant_id", "row_id", "created_time", "modified_time", "status", "buyer_id", "seller_nick", "buyer_nick",
        "title", "price", "quantity", "group_id", "attributes");
  }

  @Test
  void labelsAreAliasesColumnNamesOrTheExpressionAsWritten() {
    SelectStatement statement = parse("SELECT t.Price, COUNT(*) AS n, IFNULL(quantity,  0) FROM transaction_logs t "
        + "GROUP BY price, quantity");
    assertThat(statement.items()).extracting(SelectItem::label).containsExactly("price", "n", "IFNULL(quantity,  0)");
  }

  @Test
  void parametersBindInOrderAndLimitOffsetReadBothSyntaxes() {
    SelectStatement statement = parse("SELECT row_id FROM transaction_logs WHERE tenant_id = ? AND price > ? "
        + "AND seller_nick = ? LIMIT 5, 10", 7, new BigDecimal("1.5"), "ann");
    assertThat(statement.where().toString()).isEqualTo("(((tenant_id = 7) AND (price > 1.5)) AND (seller_nick = 'ann'))");
    assertThat(statement.limit()).isEqualTo(10);
    assertThat(statement.offset()).isEqualTo(5);
  }

  @Test
  void matchAgainstIsRewrittenOutsideStringsOnly() {
    SelectStatement statement = parse("SELECT row_id FROM transaction_logs WHERE MATCH (title) AGAINST ('red wool' "
        + "IN NATURAL LANGUAGE MODE) AND seller_nick = 'match(title) against(x)'");
    assertThat(statement.where().toString())
        .isEqualTo("(MATCH(title) AGAINST('red wool') AND (seller_nick = 'match(title) against(x)'))");
  }

  @Test
  void orderByAndGroupByResolveAliasesAndOrdinals() {
    SelectStatement statement = parse("SELECT seller_nick AS s, COUNT(*) AS n FROM transaction_logs "
        + "GROUP BY 1 HAVING n > 1 ORDER BY n DESC, s");
    assertThat(statement.groupBy()).containsExactly(new Expr.Column("seller_nick"));
    assertThat(statement.having().toString()).isEqualTo("(COUNT(*) > 1)");
    assertThat(statement.orderBy()).extracting(Object::toString).containsExactly("COUNT(*) DESC", "seller_nick ASC");
  }

  @Test
  void badSqlIsRejectedWithTheReason() {
    rejects("SELEC row_id FROM transaction_logs", "SQL syntax error");
    rejects("SELECT row_id FROM transaction_logs WHERE", "SQL syntax error: Encountered \"<EOF>\" at line 1");
    rejects("SELECT colour FROM transaction_logs", "unknown column 'colour' of transaction_logs; columns are [");
    rejects("SELECT row_id FROM orders", "unknown table 'orders'; the table is transaction_logs");
    rejects("SELECT a.row_id FROM transaction_logs a JOIN transaction_logs b ON a.row_id = b.row_id",
        "JOIN (queries read the one table transaction_logs) is not supported");
    rejects("SELECT row_id FROM transaction_logs INTERSECT SELECT row_id FROM transaction_logs", "INTERSECT");
    rejects("SELECT row_id FROM transaction_logs WHERE row_id IN (SELECT row_id FROM transaction_logs)",
        "a subquery outside the query service is not supported");
    rejects("SELECT DAYNAME(FROM_UNIXTIME(created_time / 1000)) FROM transaction_logs",
        "function DAYNAME (functions are COUNT");
    rejects("SELECT CAST(price AS TIME) FROM transaction_logs", "CAST to TIME (SIGNED, UNSIGNED, DECIMAL(p, s), CHAR");
    rejects("SELECT seller_nick, COUNT(*) FROM transaction_logs GROUP BY buyer_nick",
        "SELECT uses seller_nick, which is neither a GROUP BY key nor inside an aggregate function");
    rejects("SELECT row_id FROM transaction_logs WHERE COUNT(*) > 1", "aggregate functions are not allowed in WHERE");
    rejects("SELECT row_id FROM transaction_logs WHERE MATCH(seller_nick) AGAINST('x')",
        "MATCH needs a full-text column; seller_nick is KEYWORD");
    rejects("SELECT row_id FROM transaction_logs WHERE MATCH(title) AGAINST('+x' IN BOOLEAN MODE)",
        "MATCH ... AGAINST(... IN BOOLEAN MODE) is not supported");
    rejects("SELECT row_id FROM transaction_logs WHERE row_id = ?", "has a ? parameter number 1 but params has 0");
    rejects("SELECT row_id FROM transaction_logs WHERE price > 1e3", "approximate number");
    rejects("SELECT SUM(DISTINCT price) FROM transaction_logs", "SUM(DISTINCT ...) (COUNT(DISTINCT ...) is supported)");
    rejects("SELECT row_id FROM transaction_logs ORDER BY 3", "ORDER BY position 3 is not in the select list (1..1)");
    rejects("SELECT row_id FROM transaction_logs WHERE attr(seller_nick) = 'x'", "attr takes one string literal");
  }

  @Test
  void explainPrefixIsRecognised() {
    assertThat(parse("explain SELECT row_id FROM transaction_logs").explain()).isTrue();
    assertThat(parse("SELECT row_id FROM transaction_logs").explain()).isFalse();
    assertThat(parse("SELECT row_id FROM transaction_logs LIMIT 3").items()).hasSize(1);
    assertThat(List.of(parse("SELECT DISTINCT status FROM transaction_logs").groupBy()))
        .containsExactly(List.of(new Expr.Column("status")));
  }

  @Test
  void unionNestsToTheLeftAndOrdersByOutputColumns() {
    Statement statement = StatementParser.parse("SELECT row_id AS r, status FROM transaction_logs WHERE status = 1 "
        + "UNION ALL SELECT row_id, quantity FROM transaction_logs UNION (SELECT buyer_id, 0 FROM transaction_logs "
        + "ORDER BY buyer_id LIMIT 3) ORDER BY status DESC, 1 LIMIT 5 OFFSET 2", List.of(), Subqueries.NONE);
    UnionStatement union = (UnionStatement) statement;
    assertThat(union.all()).isFalse();
    assertThat(union.labels()).containsExactly("r", "status");
    assertThat(union.orderBy()).containsExactly(new UnionStatement.Order(1, true), new UnionStatement.Order(0, false));
    assertThat(union.limit()).isEqualTo(5L);
    assertThat(union.offset()).isEqualTo(2L);
    assertThat(((UnionStatement) union.left()).all()).isTrue();
    SelectStatement last = (SelectStatement) union.right();
    assertThat(last.limit()).isEqualTo(3L);
    assertThat(last.orderBy()).extracting(Object::toString).containsExactly("buyer_id ASC");
  }

  @Test
  void aliasesMaySpellWhatCalciteReservesAsMySqlAllows() {
    SelectStatement statement = parse("SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*) AS value, "
        + "CAST(price AS DATE) AS date FROM transaction_logs AS month WHERE month.created_time > 0 "
        + "AND DATE_ADD('2023-11-20', INTERVAL 2 DAY) < '2024-01-01' AND DATE_SUB('2023-11-20', INTERVAL (1 + 1) day) "
        + "< '2024-01-01' GROUP BY day, date ORDER BY value DESC, day");
    assertThat(statement.labels()).containsExactly("day", "value", "date");
    assertThat(statement.groupBy()).hasSize(2);
    assertThat(statement.orderBy()).extracting(Object::toString).containsExactly("COUNT(*) DESC",
        "DATE(FROM_UNIXTIME((created_time / 1000))) ASC");
    assertThat(statement.where().toString()).contains("INTERVAL 2 DAY").contains("INTERVAL -(1 + 1) DAY");
  }

  @Test
  void badUnionsAreRejectedWithTheReason() {
    rejectsStatement("SELECT row_id FROM transaction_logs UNION SELECT row_id, status FROM transaction_logs",
        "the SELECTs of a UNION have different numbers of columns: 1 and 2");
    rejectsStatement("SELECT row_id FROM transaction_logs UNION SELECT status FROM transaction_logs ORDER BY status",
        "the ORDER BY of a UNION names one of its columns [row_id] or a position; got: status");
    rejectsStatement("SELECT row_id FROM transaction_logs UNION SELECT status FROM transaction_logs ORDER BY 2",
        "ORDER BY position 2 is not in the UNION's columns (1..1)");
  }

  @Test
  void subqueriesBecomeTheirValuesAskedForNoMoreRowsThanTheirUseNeeds() {
    List<Statement> asked = new ArrayList<>();
    Subqueries answers = inner -> {
      asked.add(inner);
      return switch (asked.size()) {
        case 1 -> List.of(Arrays.asList(3L), Arrays.asList((Object) null));
        case 2 -> List.of(List.of(new BigDecimal("12.50")));
        case 3 -> List.of();
        default -> List.of(List.of(1L));
      };
    };
    SelectStatement statement = (SelectStatement) StatementParser.parse("SELECT row_id FROM transaction_logs t "
        + "WHERE status NOT IN (SELECT quantity FROM transaction_logs WHERE tenant_id = ?) "
        + "AND price > (SELECT AVG(price) FROM transaction_logs) AND buyer_id IN (SELECT buyer_id FROM "
        + "transaction_logs WHERE status = 9) AND EXISTS (SELECT * FROM transaction_logs WHERE tenant_id = 2)",
        List.of(7L), answers);
    assertThat(statement.where().toString()).isEqualTo("(((NOT (status IN (3, NULL)) AND (price > 12.50)) AND "
        + "false) AND true)");
    SelectStatement in = (SelectStatement) asked.get(0);
    assertThat(in.distinct()).isTrue();
    assertThat(in.limit()).isEqualTo(ExpressionTranslator.MAX_IN_VALUES + 1L);
    assertThat(in.where().toString()).isEqualTo("(tenant_id = 7)");
    assertThat(((SelectStatement) asked.get(1)).limit()).isEqualTo(2L);
    assertThat(((SelectStatement) asked.get(3)).limit()).isEqualTo(1L);
  }

  @Test
  void badSubqueriesAreRejectedWithTheReason() {
    Subqueries two = inner -> List.of(List.of(1L), List.of(2L));
    rejectsWith(two, "SELECT row_id FROM transaction_logs WHERE price > (SELECT price FROM transaction_logs)",
        "a subquery used as a value returned more than one row");
    rejectsWith(two, "SELECT row_id FROM transaction_logs WHERE row_id IN (SELECT row_id, status FROM "
        + "transaction_logs)", "a subquery in IN returns one column; this one returns 2: [row_id, status]");
    rejectsWith(two, "SELECT row_id FROM transaction_logs WHERE row_id IN (SELECT row_id FROM transaction_logs "
        + "LIMIT 5)", "LIMIT in an IN subquery (as in MySQL and MariaDB) is not supported");
    rejectsWith(two, "SELECT row_id FROM transaction_logs t WHERE price > (SELECT AVG(price) FROM transaction_logs "
        + "WHERE tenant_id = t.tenant_id)", "a correlated subquery (t.tenant_id reads the enclosing query's row");
    Subqueries many = inner -> {
      List<List<Object>> rows = new ArrayList<>();
      for (long i = 0; i <= ExpressionTranslator.MAX_IN_VALUES; i++) {
        rows.add(List.of(i));
      }
      return rows;
    };
    rejectsWith(many, "SELECT row_id FROM transaction_logs WHERE row_id IN (SELECT row_id FROM transaction_logs)",
        "the subquery of IN has more than 10000 distinct values");
  }

  private static void rejectsStatement(String sql, String message) {
    rejectsWith(Subqueries.NONE, sql, message);
  }

  private static void rejectsWith(Subqueries subqueries, String sql, String message) {
    assertThatThrownBy(() -> StatementParser.parse(sql, List.of(), subqueries))
        .isInstanceOf(QueryException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((QueryException) e).status()).isEqualTo(400));
  }
}
