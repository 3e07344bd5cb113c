package io.evenkeel.benchmarks.rehearsal;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrillTest {
  @Test
  void ingestResumesAtTheEndOfTheLongestTimeWithoutARowFound() {
    // A JobManager's loss at 100: rows keep being found until its task managers notice (105), none until 118.
    List<Long> found = List.of(90L, 101L, 102L, 104L, 105L, 118L, 119L, 120L, 125L);
    assertThat(Drill.resumedAt(found, 100, 125)).isEqualTo(118);
    // Rows found after the window are not counted: until 110 the longest pause was 102 to 104.
    assertThat(Drill.resumedAt(found, 100, 110)).isEqualTo(104);
    assertThat(Drill.resumedAt(List.of(), 100, 125)).isEqualTo(100);
  }

  @Test
  void theLongestGapBetweenAnsweredCountsIncludesTheEnds() {
    List<SearchableWatch.Count> counts = List.of(new SearchableWatch.Count(10, 1), new SearchableWatch.Count(12, 2),
        new SearchableWatch.Count(20, 3), new SearchableWatch.Count(21, 4));
    assertThat(Drill.longestGap(counts, 11, 21)).isEqualTo(8);
    assertThat(Drill.longestGap(counts, 0, 12)).isEqualTo(10);
    assertThat(Drill.longestGap(counts, 21, 40)).isEqualTo(19);
  }
}
