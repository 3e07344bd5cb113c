package io.evenkeel.benchmarks.skew;

import java.util.Locale;

/**
 * One workload of the skew benchmark: new rows of Zipf(θ) tenants offered at a fixed rate for a warm-up and a
 * measured span, optionally with a surge (one tenant takes {@code surgeShare} of all rows for {@code surgeSeconds},
 * starting {@code surgeAtSeconds} into the measured span).
 */
record SkewWorkload(String name, double theta, int tenants, double rate, double warmupSeconds,
    double measureSeconds, double surgeAtSeconds, double surgeSeconds, double surgeShare) {

  static SkewWorkload steady(double theta, int tenants, double rate, double warmupSeconds, double measureSeconds) {
    return new SkewWorkload(String.format(Locale.ROOT, "θ = %s", trim(theta)), theta, tenants, rate, warmupSeconds,
        measureSeconds, 0, 0, 0);
  }

  static SkewWorkload surge(double theta, int tenants, double rate, double warmupSeconds, double measureSeconds,
      double surgeAtSeconds, double surgeSeconds, double share) {
    return new SkewWorkload(String.format(Locale.ROOT, "surge (θ = %s, one tenant %.0f%% for %.0f s)", trim(theta),
        share * 100, surgeSeconds), theta, tenants, rate, warmupSeconds, measureSeconds, surgeAtSeconds, surgeSeconds,
        share);
  }

  boolean hasSurge() {
    return surgeSeconds > 0;
  }

  /** Seconds from the start of the offer: the surge's start and end. */
  double surgeStart() {
    return warmupSeconds + surgeAtSeconds;
  }

  double surgeEnd() {
    return surgeStart() + surgeSeconds;
  }

  double totalSeconds() {
    return warmupSeconds + measureSeconds;
  }

  /** Rows offered in all. */
  long rows() {
    return (long) (rate * totalSeconds());
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
