package io.evenkeel.cluster.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {
  private final MemoryBudget budget = new MemoryBudget(1_000, 600, "--all", "--one");

  @Test
  void aRequestOverItsOwnLimitIsRefusedAsTooLargeAndHoldsNothingMore() {
    try (MemoryBudget.Reservation request = budget.open()) {
      request.reserve(500, "500 groups");
      assertThatThrownBy(() -> request.reserve(101, "101 more groups"))
          .isInstanceOfSatisfying(MemoryBudget.Exceeded.class, e -> {
            assertThat(e.perRequest()).isTrue();
            assertThat(e.limit()).isEqualTo(600);
          })
          .hasMessage("the request needs more than the 600 B one request may hold (--one) for 101 more groups");
      assertThat(request.held()).isEqualTo(500);
      assertThat(budget.used()).isEqualTo(500);
      // Refused once, refused for good: the request's other parts stop at their next reservation.
      assertThatThrownBy(() -> request.reserve(1, "one more")).isInstanceOf(MemoryBudget.Exceeded.class);
    }
    assertThat(budget.used()).isZero();
  }

  @Test
  void requestsTogetherOverTheProcessLimitAreRefusedAsBusyUntilOthersClose() {
    MemoryBudget.Reservation first = budget.open();
    first.reserve(600, "rows");
    try (MemoryBudget.Reservation second = budget.open()) {
      second.reserve(400, "rows");
      assertThatThrownBy(() -> second.reserve(1, "1 row")).isInstanceOfSatisfying(MemoryBudget.Exceeded.class,
          e -> assertThat(e.perRequest()).isFalse())
          .hasMessage("the requests running now hold 1000 B of the 1000 B they may hold together (--all); this one"
              + " needs 1 B more for 1 row");
    }
    first.close();
    first.close();
    assertThat(budget.used()).isZero();
    try (MemoryBudget.Reservation third = budget.open()) {
      third.reserve(600, "rows");
      assertThat(budget.used()).isEqualTo(600);
    }
  }

  @Test
  void limitsAreChecked() {
    assertThatThrownBy(() -> new MemoryBudget(100, 200, "--all", "--one"))
        .hasMessage("--one must be at least 1 byte and at most --all (100 B); got: 200 B");
    MemoryBudget defaults = MemoryBudget.of(null, null, "--all", "--one");
    assertThat(defaults.requestLimit()).isLessThanOrEqualTo(MemoryBudget.DEFAULT_REQUEST_LIMIT)
        .isLessThanOrEqualTo(defaults.processLimit());
    assertThat(MemoryBudget.of(10L << 20, null, "--all", "--one").requestLimit()).isEqualTo(10L << 20);
  }

  @Test
  void sizesReadAsOperatorsWriteThem() {
    assertThat(ByteSize.parse("64m")).isEqualTo(64L << 20);
    assertThat(ByteSize.parse("1G")).isEqualTo(1L << 30);
    assertThat(ByteSize.parse("512KiB")).isEqualTo(512L << 10);
    assertThat(ByteSize.parse("4096")).isEqualTo(4096);
    assertThatThrownBy(() -> ByteSize.parse("lots")).hasMessageContaining("got: lots");
    assertThatThrownBy(() -> ByteSize.parse("99999999999999g")).hasMessageContaining("too large");
    assertThat(ByteSize.format(64L << 20)).isEqualTo("64 MiB");
    assertThat(ByteSize.format(1536)).isEqualTo("1.5 KiB");
    assertThat(ByteSize.format(12)).isEqualTo("12 B");
  }
}
