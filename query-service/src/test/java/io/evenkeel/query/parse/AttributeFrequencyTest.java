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

  @Test
  void madeUpKeysCostNoMemoryBeyondTheBounds() {
    AttributeFrequency frequency = new AttributeFrequency();
    // 500 made-up keys a statement.
    for (int first = 0; first < AttributeFrequency.MAX_PAIRS + 500; first += 500) {
      StringBuilder where = new StringBuilder("attr('k" + first + "') = 'x'");
      for (int i = first + 1; i < first + 500; i++) {
        where.append(" OR attr('k").append(i).append("') = 'x'");
      }
      frequency.record(StatementParser.parse("SELECT COUNT(*) FROM transaction_logs WHERE " + where, List.of()),
          "of tenant 9");
    }
    assertThat(frequency.snapshot()).hasSize(AttributeFrequency.MAX_KEYS);
    assertThat(frequency.takeInterval()).hasSize(AttributeFrequency.MAX_PAIRS);
    frequency.record(usingKey("color"), "of tenant 1");
    assertThat(frequency.takeInterval()).as("the next interval counts again").containsKey("color");
  }
}
