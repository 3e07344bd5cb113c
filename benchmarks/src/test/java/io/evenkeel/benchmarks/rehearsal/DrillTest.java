package io.evenkeel.benchmarks.rehearsal;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import io.evenkeel.benchmarks.experiments.SearchableWatch.Probe;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrillTest {
  /** A probe sent at {@code sent} and found at {@code found}. */
  private static Probe probe(long sent, long found) {
    return new Probe(sent, found - sent, true);
  }

  @Test
  void ingestsLongestStopIsTheLongestTimeInWhichRowsWaitedAndNoneWasFound() {
    // A JobManager's loss at 100: rows keep being found until its task managers notice (105), then none until 118;
    // the first row left waiting was sent at 106.
    List<Probe> probes = List.of(probe(89, 90), probe(100, 101), probe(101, 102), probe(103, 104), probe(104, 105),
        probe(106, 118), probe(110, 118), probe(117, 119), probe(119, 120), probe(124, 125));
    assertThat(Drill.longestStop(probes, 100, 125)).isEqualTo(new Drill.Stop(106, 118));
    // Rows found after the window are not counted: until 110 no row waited over a second, the first from 100 to 101.
    assertThat(Drill.longestStop(probes, 100, 110)).isEqualTo(new Drill.Stop(100, 101));
    assertThat(Drill.longestStop(List.of(), 100, 125)).isEqualTo(new Drill.Stop(100, 100));
  }

  @Test
  void aPauseOfTheLoadIsNotAStopOfIngest() {
    // Nothing sent from 101 to 119: every row was found a second after its send.
    List<Probe> probes = List.of(probe(100, 101), probe(119, 120), probe(120, 121), probe(121, 122));
    assertThat(Drill.longestStop(probes, 100, 122)).isEqualTo(new Drill.Stop(100, 101));
    assertThat(Drill.longestSendPause(probes, 100, 122)).isEqualTo(19);
    assertThat(Drill.longestSendPause(probes, 100, 130)).isEqualTo(19);
    assertThat(Drill.longestSendPause(probes, 100, 150)).isEqualTo(29);
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
