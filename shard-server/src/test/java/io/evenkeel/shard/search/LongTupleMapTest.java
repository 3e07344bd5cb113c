package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The map of long tuples answers as a HashMap of lists does, through growth, for longs of every size and sign. */
class LongTupleMapTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 5})
  void findsWhatWasPutAndNothingElse(int width) {
    Random random = new Random(3 + width);
    LongTupleMap<String> map = new LongTupleMap<>(width);
    Map<List<Long>, String> expected = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      long[] tuple = new long[width];
      for (int j = 0; j < width; j++) {
        tuple[j] = switch ((i + j) % 4) {
          case 0 -> random.nextInt(1_000);                                  // tenant ids, statuses
          case 1 -> 1_700_000_000_000L + random.nextInt(1 << 20) * 1_024L;  // epoch times, same low bits
          case 2 -> -random.nextLong(1L << 40);
          default -> random.nextLong();
        };
      }
      if (!expected.containsKey(list(tuple))) {
        expected.put(list(tuple), "v" + i);
        map.put(tuple, "v" + i);
      }
      long[] probe = new long[width];
      for (int j = 0; j < width; j++) {
        probe[j] = random.nextLong(2_000) - 1_000;
      }
      assertThat(map.get(probe)).isEqualTo(expected.get(list(probe)));
    }
    assertThat(map.size()).isEqualTo(expected.size());
    List<List<Long>> found = new ArrayList<>();
    for (int slot = 0; slot < map.slots(); slot++) {
      if (map.valueAt(slot) != null) {
        long[] tuple = new long[width];
        for (int j = 0; j < width; j++) {
          tuple[j] = map.keyAt(slot, j);
        }
        assertThat(map.valueAt(slot)).isEqualTo(expected.get(list(tuple)));
        assertThat(map.get(tuple)).isEqualTo(map.valueAt(slot));
        found.add(list(tuple));
      }
    }
    assertThat(found).hasSize(expected.size());
    assertThat(new HashSet<>(found)).isEqualTo(expected.keySet());
  }

  private static List<Long> list(long[] tuple) {
    List<Long> list = new ArrayList<>(tuple.length);
    for (long value : tuple) {
      list.add(value);
    }
    return list;
  }
}
