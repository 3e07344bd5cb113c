package io.evenkeel.benchmarks.query;

import java.util.Arrays;
import java.util.List;

/** Flags and latency figures shared by the query and peer benchmarks. */
public final class BenchmarkFigures {
  private BenchmarkFigures() {}

  static int intArg(String[] args, String name, int defaultValue) {
    int i = Arrays.asList(args).indexOf(name);
    if (i < 0) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(args[i + 1]);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(name + " takes a number; got: " + (i + 1 < args.length ? args[i + 1] : ""));
    }
  }

  static String stringArg(String[] args, String name, String defaultValue) {
    int i = Arrays.asList(args).indexOf(name);
    if (i < 0) {
      return defaultValue;
    }
    if (i + 1 >= args.length) {
      throw new IllegalArgumentException(name + " takes a value");
    }
    return args[i + 1];
  }

  static double mean(List<Double> times) {
    return times.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  /** The p-quantile (nearest rank) of ascending {@code sorted}. */
  public static double percentile(double[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  static double percentile(List<Double> times, double p) {
    return percentile(times.stream().mapToDouble(Double::doubleValue).sorted().toArray(), p);
  }
}
