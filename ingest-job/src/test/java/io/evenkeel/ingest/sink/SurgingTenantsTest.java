package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The view after {@code second(k, ...)} is decided from second k - 1, when second k's first change came. */
class SurgingTenantsTest {
  /** {@code changes} changes of each tenant in turn, spread over the second starting at {@code second} s. */
  private static void second(SurgingTenants surging, long second, long... tenantAndChanges) {
    long all = 0;
    for (int i = 1; i < tenantAndChanges.length; i += 2) {
      all += tenantAndChanges[i];
    }
    long n = 0;
    for (int i = 0; i < tenantAndChanges.length; i += 2) {
      for (long c = 0; c < tenantAndChanges[i + 1]; c++) {
        surging.count(tenantAndChanges[i], second * 1_000 + n++ * 999 / all);
      }
    }
  }

  @Test
  void aTenantAboveTheHotShareOfASecondSurgesFromTheNextOnUntilItFallsBelowTheCoolShare() {
    SurgingTenants surging = new SurgingTenants(0.1, 0.05, 100);
    second(surging, 0, 1, 500, 2, 50, 3, 450);
    assertThat(surging.test(1)).isFalse();
    second(surging, 1, 1, 500, 2, 50, 3, 450);
    assertThat(surging.test(1)).as("decided when the next second began").isTrue();
    assertThat(surging.test(3)).isTrue();
    assertThat(surging.test(2)).as("under the hot share").isFalse();

    second(surging, 2, 1, 70, 3, 1_000);
    second(surging, 3, 1, 40, 3, 1_000);
    assertThat(surging.test(1)).as("within the band (6.5% of second 2)").isTrue();
    second(surging, 4, 3, 1_000);
    assertThat(surging.test(1)).as("below the cool share (3.8% of second 3)").isFalse();
  }

  @Test
  void aFewChangesNeverMakeASurgeAndAPauseClearsTheView() {
    SurgingTenants surging = new SurgingTenants(0.1, 0.05, 100);
    second(surging, 0, 1, 90, 2, 5);
    second(surging, 1, 1, 90);
    assertThat(surging.test(1)).as("95% of a second, but 90 changes").isFalse();
    second(surging, 2, 1, 300);
    second(surging, 3, 1, 300);
    assertThat(surging.test(1)).isTrue();
    second(surging, 10, 1, 1);
    assertThat(surging.test(1)).as("after seconds without a change").isFalse();
  }
}
