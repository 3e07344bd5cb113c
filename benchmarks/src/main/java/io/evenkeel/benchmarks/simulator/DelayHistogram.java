package io.evenkeel.benchmarks.simulator;

/** Write delays, weighted by how many writes had each, in buckets one simulated tick wide. */
final class DelayHistogram {
  private final double tickMillis;
  private final double[] weights;
  private double total;

  DelayHistogram(double tickMillis, int ticks) {
    this.tickMillis = tickMillis;
    this.weights = new double[ticks + 1];
  }

  void add(double delayMillis, double weight) {
    weights[Math.min(weights.length - 1, (int) (delayMillis / tickMillis))] += weight;
    total += weight;
  }

  /** The delay below which a fraction {@code q} of the writes fall, in milliseconds (the bucket's middle). */
  double quantile(double q) {
    if (total <= 0) {
      return Double.NaN;
    }
    double wanted = q * total;
    double seen = 0;
    for (int bucket = 0; bucket < weights.length; bucket++) {
      seen += weights[bucket];
      if (seen >= wanted) {
        return (bucket + 0.5) * tickMillis;
      }
    }
    return (weights.length - 0.5) * tickMillis;
  }
}
