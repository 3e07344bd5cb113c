package io.evenkeel.query.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.query.result.QueryException;
import org.junit.jupiter.api.Test;

class TenantSlotsTest {
  @Test
  void aPartyOverItsShareGets429WhileOthersStillRun() {
    TenantSlots slots = new TenantSlots(2);
    TenantSlots.Slot first = slots.acquire("of tenant 7");
    TenantSlots.Slot second = slots.acquire("of tenant 7");
    assertThatThrownBy(() -> slots.acquire("of tenant 7")).isInstanceOfSatisfying(QueryException.class,
        e -> assertThat(e.status()).isEqualTo(429))
        .hasMessageContaining("2 queries of tenant 7 are running")
        .hasMessageContaining("--max-concurrent-queries-per-tenant");
    try (TenantSlots.Slot other = slots.acquire("of tenant 8")) {
      assertThat(slots.running("of tenant 8")).isEqualTo(1);
    }
    first.close();
    try (TenantSlots.Slot again = slots.acquire("of tenant 7")) {
      assertThat(slots.running("of tenant 7")).isEqualTo(2);
    }
    second.close();
    assertThat(slots.running("of tenant 7")).isZero();
    try (TenantSlots.Slot analytics = slots.acquire(TenantSlots.SEVERAL_TENANTS)) {
      assertThatThrownBy(() -> slots.acquire(TenantSlots.SEVERAL_TENANTS)).as("a quarter of the share")
          .hasMessageContaining("a quarter of it for queries over several tenants");
    }
    assertThat(slots.running("of tenant 8")).isZero();
  }
}
