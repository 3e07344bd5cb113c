package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitoredHotTenantsTest {
  private static WindowSummary window(long end, double... tenantShares) {
    List<TenantShare> shares = new ArrayList<>();
    for (int i = 0; i < tenantShares.length; i += 2) {
      shares.add(new TenantShare((long) tenantShares[i], Math.round(tenantShares[i + 1] * 1000), tenantShares[i + 1]));
    }
    return WindowSummary.newBuilder().setWindowStart(end - 10).setWindowEnd(end).setTotalWrites(1000)
        .setActiveTenants(shares.size()).setTopTenants(shares).setShardLoads(List.of()).build();
  }

  @Test
  void aTenantEntersAboveTheHotShareAndLeavesBelowTheCoolShareOrWhenLeftOut() {
    MonitoredHotTenants view = new MonitoredHotTenants(0.02, 0.01);
    assertThat(view.test(1)).isFalse();

    view.update(window(10, 1, 0.30, 2, 0.015, 3, 0.02));
    assertThat(view.tenants()).as("above the hot share only; at it is not above").containsExactly(1L);

    view.update(window(20, 1, 0.012, 2, 0.025));
    assertThat(view.tenants()).as("tenant 1 within the band stays").containsExactlyInAnyOrder(1L, 2L);

    view.update(window(30, 1, 0.009, 2, 0.011));
    assertThat(view.tenants()).as("tenant 1 below the cool share leaves").containsExactly(2L);

    view.update(window(25, 1, 0.5));
    assertThat(view.tenants()).as("an older window changes nothing").containsExactly(2L);

    view.update(window(40, 3, 0.5));
    assertThat(view.tenants()).as("a tenant the summary leaves out leaves").containsExactly(3L);
    assertThat(view.test(3)).isTrue();
    assertThat(view.test(2)).isFalse();
  }
}
