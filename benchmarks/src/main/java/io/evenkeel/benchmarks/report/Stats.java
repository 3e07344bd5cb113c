package io.evenkeel.benchmarks.report;

import java.util.Arrays;

/** Load-balance figures over per-shard (or per-server) loads. */
public final class Stats {
  private Stats() {}

  /** The hottest shard's load relative to the mean: 1.0 is perfectly even. */
  public static double maxOverMean(long[] values) {
    double mean = Arrays.stream(values).average().orElse(0);
    return mean == 0 ? 0 : Arrays.stream(values).max().orElse(0) / mean;
  }

  /** Standard deviation over mean (population): 0 is perfectly even. */
  public static double coefficientOfVariation(long[] values) {
    return coefficientOfVariation(Arrays.stream(values).asDoubleStream().toArray());
  }

  /** Standard deviation over mean (population): 0 is perfectly even. */
  public static double coefficientOfVariation(double[] values) {
    double mean = Arrays.stream(values).average().orElse(0);
    if (mean == 0) {
      return 0;
    }
    double squares = 0;
    for (double v : values) {
      squares += (v - mean) * (v - mean);
    }
    return Math.sqrt(squares / values.length) / mean;
  }
}
