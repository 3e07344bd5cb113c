package io.evenkeel.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SinglesDayTraceTest {
  @Test
  void updatesFollowTheirRowsInsertWithTheNextVersionAndTheSameCreationTime() {
    SinglesDayTrace trace = new SinglesDayTrace(3, 10_000, 1.0, 0.3, 5_000_000);
    Map<List<Long>, TransactionLogChange> rows = new HashMap<>();
    int updates = 0;
    for (int i = 0; i < 50_000; i++) {
      TransactionLogChange change = trace.next(1_000_000L + i);
      Changes.validate(change);
      List<Long> key = List.of(change.getTenantId(), change.getRowId());
      TransactionLogChange before = rows.get(key);
      if (change.getOp() == ChangeOp.INSERT) {
        assertThat(before).as("insert of an existing row %s", key).isNull();
        assertThat(change.getRowId()).isGreaterThanOrEqualTo(5_000_000);
        assertThat(change.getVersion()).isEqualTo(1);
      } else {
        updates++;
        assertThat(change.getOp()).isEqualTo(ChangeOp.UPDATE);
        assertThat(before).as("update of a row never inserted %s", key).isNotNull();
        assertThat(change.getVersion()).isEqualTo(before.getVersion() + 1);
        assertThat(change.getCreatedTime()).isEqualTo(before.getCreatedTime());
      }
      rows.put(key, change);
    }
    assertThat(updates).isBetween(13_500, 16_500);
  }

  @Test
  void theHotGroupMovesToOtherTenants() {
    SinglesDayTrace trace = new SinglesDayTrace(3, 10_000, 1.0, 0.0, 0);
    long hottest = hottest(trace);
    assertThat(hottest).isEqualTo(trace.tenants().tenantAtRank(1));
    trace.moveHotspot();
    assertThat(hottest(trace)).isEqualTo(trace.tenants().tenantAtRank(1)).isNotEqualTo(hottest);
  }

  private static long hottest(SinglesDayTrace trace) {
    Map<Long, Integer> counts = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      counts.merge(trace.next(i).getTenantId(), 1, Integer::sum);
    }
    return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }
}
