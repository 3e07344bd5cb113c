package io.evenkeel.query.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AttributeFrequencyTest {
  private static SelectStatement usingKey(String key) {
    return StatementParser.parse("SELECT COUNT(*) FROM transaction_logs WHERE attr('" + key + "') = 'x'", List.of());
  }

  @Test
  void eachIntervalCountsQueriesPerKeyAndParty() {
    AttributeFrequency frequency = new AttributeFrequency();
    frequency.record(usingKey("color"), "of tenant 1");
    frequency.record(usingKey("color"), "of tenant 1");
    frequency.record(usingKey("color"), "of tenant 2");
    assertThat(frequency.takeInterval()).isEqualTo(Map.of("color", Map.of("of tenant 1", 2L, "of tenant 2", 1L)));
    assertThat(frequency.takeInterval()).as("a new interval").isEmpty();
    assertThat(frequency.snapshot()).isEqualTo(Map.of("color", 3L));
  }

  /**
   * 105,000 made-up keys of 201 parties: at most 10,000 keys in all, 1,000 keys of one party and 100,000 pairs an
   * interval are counted; a party that floods leaves room for another's key.
   */
  @Test
  void madeUpKeysCostNoMemoryBeyondTheBounds() {
    AttributeFrequency frequency = new AttributeFrequency();
    for (int first = 0; first < AttributeFrequency.MAX_PAIRS + 5_000; first += 500) {
      // 500 made-up keys a statement; the first party floods, the others send 500 each.
      String party = first < 5_000 ? "of tenant 9" : "of tenant " + (10 + first / 500);
      frequency.record(madeUpKeys(first, 500), party);
    }
    assertThat(frequency.snapshot()).hasSize(AttributeFrequency.MAX_KEYS);
    Map<String, Map<String, Long>> interval = frequency.takeInterval();
    assertThat(interval.values().stream().mapToInt(Map::size).sum()).isEqualTo(AttributeFrequency.MAX_PAIRS);
    assertThat(interval.values().stream().filter(parties -> parties.containsKey("of tenant 9")).count())
        .isEqualTo(AttributeFrequency.MAX_KEYS_PER_PARTY);

    for (int i = 0; i < 6; i++) {
      frequency.record(madeUpKeys(1_000_000 + i * 500, 500), "of tenant 9");
    }
    frequency.record(usingKey("color"), "of tenant 1");
    assertThat(frequency.takeInterval()).as("a flood leaves room").containsKey("color");
  }

  private static SelectStatement madeUpKeys(int first, int count) {
    StringBuilder where = new StringBuilder("attr('k" + first + "') = 'x'");
    for (int i = first + 1; i < first + count; i++) {
      where.append(" OR attr('k").append(i).append("') = 'x'");
    }
    return StatementParser.parse("SELECT COUNT(*) FROM transaction_logs WHERE " + where, List.of());
  }
}
