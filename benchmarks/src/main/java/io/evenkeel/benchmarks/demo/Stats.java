package io.evenkeel.benchmarks.demo;

/** Load-balance figures over per-shard counts. */
final class Stats {
  private Stats() {}

  static double mean(long[] values) {
    double sum = 0;
    for (long v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** The hottest shard's load relative to the mean: 1.0 is perfectly even. */
  static double maxOverMean(long[] values) {
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    double mean = mean(values);
    return mean == 0 ? 0 : max / mean;
  }

  /** Standard deviation over mean (population): 0 is perfectly even. */
  static double coefficientOfVariation(long[] values) {
    double mean = mean(values);
    if (mean == 0) {
      return 0;
    }
    double squares = 0;
    for (long v : values) {
      squares += (v - mean) * (v - mean);
    }
    return Math.sqrt(squares / values.length) / mean;
  }
}
