package io.evenkeel.query.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.query.expr.Expr;
import io.evenkeel.query.result.QueryException;
import java.math.BigDecimal;
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
    rejects("SELECT row_id FROM transaction_logs UNION SELECT row_id FROM transaction_logs", "UNION");
    rejects("SELECT row_id FROM transaction_logs WHERE row_id IN (SELECT row_id FROM transaction_logs)",
        "IN with a subquery is not supported");
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
}
