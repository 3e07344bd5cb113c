package io.evenkeel.benchmarks.experiments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a replay's figures are read from the watch's samples (the runs themselves are in StackExperimentsIT). */
class ReplayPointTest {
  private static final List<SearchableWatch.Count> COUNTS = List.of(new SearchableWatch.Count(1_000, 0),
      new SearchableWatch.Count(2_000, 100), new SearchableWatch.Count(4_000, 100), new SearchableWatch.Count(5_000,
          400));

  @Test
  void theRowCountBetweenTwoSamplesIsReadOnTheLineBetweenThem() {
    assertThat(SearchableWatch.Count.at(COUNTS, 1_500)).isCloseTo(50, within(1e-9));
    assertThat(SearchableWatch.Count.at(COUNTS, 3_000)).isCloseTo(100, within(1e-9));
    assertThat(SearchableWatch.Count.at(COUNTS, 4_900)).isCloseTo(370, within(1e-9));
  }

  @Test
  void beforeTheFirstSampleAndAfterTheLastTheNearestCounts() {
    assertThat(SearchableWatch.Count.at(COUNTS, 0)).isZero();
    assertThat(SearchableWatch.Count.at(COUNTS, 9_000)).isEqualTo(400);
  }

  @Test
  void aReplaysFiguresCountOnlyWhatFollowsTheWarmUp() {
    long second = 1_000_000_000L;
    List<SearchableWatch.Count> counts = List.of(new SearchableWatch.Count(0, 0),
        new SearchableWatch.Count(10 * second, 500), new SearchableWatch.Count(20 * second, 1_700),
        new SearchableWatch.Count(25 * second, 2_000));
    List<SearchableWatch.Probe> probes = List.of(
        new SearchableWatch.Probe(5 * second, 30 * second, false), // in the warm-up: not counted
        new SearchableWatch.Probe(11 * second, second, true),
        new SearchableWatch.Probe(12 * second, 2 * second, true),
        new SearchableWatch.Probe(19 * second, 10 * second, false));

    ReplayPoint point = ReplayPoint.of("hashing", null, 0, 10 * second, 20 * second, 1_000, probes, counts, 3,
        ShardSpread.UNKNOWN);

    assertThat(point.offered()).isEqualTo(100);
    assertThat(point.throughput()).isCloseTo(120, within(1e-9));
    assertThat(point.served()).isCloseTo(1.2, within(1e-9));
    assertThat(point.probes()).isEqualTo(3);
    assertThat(point.unseen()).isEqualTo(1);
    assertThat(point.delayP50Millis()).isEqualTo(2_000);
    assertThat(point.delayP99Millis()).isEqualTo(10_000);
    assertThat(point.timeline()).hasSize(25);
    assertThat(point.timeline()[12]).isCloseTo(120, within(1e-9));
    assertThat(point.timeline()[22]).isCloseTo(60, within(1e-9));
    assertThat(point.rules()).isEqualTo(3);
  }

  @Test
  void quantilesAreNearestRankAndNaNWithoutProbes() {
    double[] delays = {10, 20, 30, 40, 1_000};
    assertThat(ReplayPoint.quantile(delays, 0.5)).isEqualTo(30);
    assertThat(ReplayPoint.quantile(delays, 0.99)).isEqualTo(1_000);
    assertThat(ReplayPoint.quantile(new double[0], 0.5)).isNaN();
  }
}
