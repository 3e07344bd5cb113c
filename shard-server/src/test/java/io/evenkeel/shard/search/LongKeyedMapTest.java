package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The long-keyed map answers as a HashMap does, through growth, for keys of every size and sign. */
class LongKeyedMapTest {
  @Test
  void findsWhatWasPutAndNothingElse() {
    Random random = new Random(3);
    LongKeyedMap<String> map = new LongKeyedMap<>();
    Map<Long, String> expected = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      long key = switch (i % 4) {
        case 0 -> random.nextInt(1_000);                      // tenant ids, statuses
        case 1 -> 1_700_000_000_000L + random.nextInt(1 << 20) * 1_024L; // epoch times, same low bits
        case 2 -> -random.nextLong(1L << 40);
        default -> random.nextLong();
      };
      if (!expected.containsKey(key)) {
        expected.put(key, "v" + i);
        map.put(key, "v" + i);
      }
      long probe = random.nextLong(2_000) - 1_000;
      assertThat(map.get(probe)).isEqualTo(expected.get(probe));
    }
    expected.forEach((key, value) -> assertThat(map.get(key)).as("key %d", key).isEqualTo(value));
    assertThat(map.get(Long.MIN_VALUE)).isEqualTo(expected.get(Long.MIN_VALUE));
  }
}
