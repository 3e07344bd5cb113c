package io.evenkeel.query.merge;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.ExpressionException;
import io.evenkeel.expr.TableRow;
import io.evenkeel.query.optimize.Optimizer;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.optimize.QueryPlan;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.StatementParser;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service holds groups and distinct values in memory until the merge ends: both are bounded, with a 400. */
class GroupsTest {
  private static TableRow row(long rowId) {
    return TableRow.of(TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(1).setRowId(rowId)
        .setCreatedTime(1).setModifiedTime(1).setVersion(1).build());
  }

  private static Groups groups(String sql) {
    SelectStatement statement = StatementParser.parse(sql, List.of());
    QueryPlan plan = new Optimizer(OptimizerSettings.defaults()).plan(statement);
    return new Groups(statement, plan.aggregates(), new Evaluator());
  }

  @Test
  void moreGroupsThanTheBoundAreRefusedNamingIt() {
    Groups groups = groups("SELECT row_id, COUNT(*) FROM transaction_logs GROUP BY row_id");
    for (long i = 0; i < Groups.MAX_GROUPS; i++) {
      groups.add(row(i));
    }
    groups.add(row(7)); // an existing group is fine
    assertThatThrownBy(() -> groups.add(row(Groups.MAX_GROUPS))).isInstanceOf(QueryException.class)
        .hasMessageStartingWith("the query makes more than 100000 groups; at most 100000");
  }

  @Test
  void moreDistinctValuesThanTheBoundAreRefusedNamingIt() {
    Groups groups = groups("SELECT COUNT(DISTINCT row_id) FROM transaction_logs");
    for (long i = 0; i < Groups.MAX_DISTINCT_VALUES; i++) {
      groups.add(row(i));
    }
    assertThatThrownBy(() -> groups.add(row(Groups.MAX_DISTINCT_VALUES))).isInstanceOf(ExpressionException.class)
        .hasMessageContaining("counts more than 1000000 distinct values");
  }
}
