package io.evenkeel.query.parse;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.expr.CompiledExpression;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.expr.TableRow;
import io.evenkeel.query.testing.ExpressionGenerator;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A compiled expression (the shards' form, one per query over many rows) gives what the evaluator gives, value for
 * value and refusal for refusal: expressions generated three calls deep over every kind, NULLs in every argument
 * position, on rows with NULLs in every nullable column, held as decoded rows and as rows set from doc values
 * (integers unboxed), in session time zones of fixed offset and with daylight saving.
 */
class CompiledExpressionTest {
  private static final int EXPRESSIONS_PER_KIND = 400;
  /** The shapes the compiled form computes its own way, beside the generated ones. */
  private static final List<String> SHAPES = List.of("SECOND(FROM_UNIXTIME(created_time / 1000)) < 30",
      "HOUR(FROM_UNIXTIME(created_time / 1000))", "MINUTE(FROM_UNIXTIME(modified_time / 1000))",
      "SECOND(FROM_UNIXTIME(buyer_id / 1000))", "YEAR(FROM_UNIXTIME(created_time / 1000))",
      "FROM_UNIXTIME(created_time / 1000)", "FROM_UNIXTIME(price / 1000)", "HOUR(FROM_UNIXTIME(quantity))",
      "DATE(FROM_UNIXTIME(created_time / 1000))", "DATE(FROM_UNIXTIME(modified_time / 1000)) = '2023-11-20'",
      "DATE(FROM_UNIXTIME(buyer_id / 1000))");

  @Test
  void compiledAndInterpretedAnswerAlike() {
    Random random = new Random(7);
    ExpressionGenerator generator = new ExpressionGenerator(random);
    List<TableRow> rows = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      TransactionLogChange change = TestRows.random(random, 3, i, 30);
      if (i == 0) {
        change = TransactionLogChange.newBuilder(change).setCreatedTime(-1_500L).build(); // before 1970: NULL dates
      }
      rows.add(TableRow.of(change));
      rows.add(asDocValues(change));
    }
    int compared = 0;
    for (String zone : List.of("UTC", "+08:00", "Europe/Berlin")) {
      Evaluator evaluator = new Evaluator((chars, function) -> { }, SessionTimeZone.parse(zone));
      List<String> expressions = new ArrayList<>(SHAPES);
      for (ExpressionGenerator.Kind kind : ExpressionGenerator.Kind.values()) {
        for (int i = 0; i < EXPRESSIONS_PER_KIND; i++) {
          expressions.add(generator.next(kind, 3));
        }
      }
      for (String text : expressions) {
        Expr expr = StatementParser.parse("SELECT " + text + " FROM transaction_logs", List.of()).items().get(0)
            .expr();
        CompiledExpression compiled = evaluator.compile(expr);
        for (TableRow row : rows) {
          assertThat(answer(() -> compiled.eval(row))).as("%s in %s", text, zone)
              .isEqualTo(answer(() -> evaluator.eval(expr, row)));
          assertThat(answer(() -> compiled.isTrue(row))).as("%s is true, in %s", text, zone)
              .isEqualTo(answer(() -> evaluator.isTrue(expr, row)));
          compared++;
        }
      }
    }
    assertThat(compared).isEqualTo(3 * (SHAPES.size() + 5 * EXPRESSIONS_PER_KIND) * rows.size());
  }

  /** The row as a shard holds it when it reads doc values: integers set unboxed, decimals and text as values. */
  private static TableRow asDocValues(TransactionLogChange change) {
    TableRow decoded = TableRow.of(change);
    TableRow row = TableRow.blank();
    for (Column column : TransactionLogsTable.COLUMNS) {
      int position = TableRow.positionOf(column.name());
      Object value = decoded.column(column.name());
      if (value instanceof Long integer && column.type() != ColumnType.DECIMAL) {
        row.setInteger(position, integer);
      } else {
        row.set(position, value);
      }
    }
    return row;
  }

  /** A value, or the refusal's class and words. */
  private static Object answer(java.util.function.Supplier<Object> evaluation) {
    try {
      return evaluation.get();
    } catch (RuntimeException refused) {
      return refused.getClass().getSimpleName() + ": " + refused.getMessage();
    }
  }
}
