package io.evenkeel.benchmarks.experiments;

import java.util.List;

/** The probes sent in a time range: how many, how many were never found, and their delays' p50 and p99. */
record ProbeDelays(int probes, int unseen, double p50Millis, double p99Millis) {
  /** Of the probes sent in [{@code from}, {@code to}) (nanoTime). */
  static ProbeDelays of(List<SearchableWatch.Probe> probes, long from, long to) {
    List<SearchableWatch.Probe> window = probes.stream().filter(p -> p.sentNanos() >= from && p.sentNanos() < to)
        .toList();
    double[] delays = window.stream().mapToDouble(p -> p.delayNanos() / 1e6).sorted().toArray();
    return new ProbeDelays(delays.length, (int) window.stream().filter(p -> !p.found()).count(),
        ReplayPoint.quantile(delays, 0.5), ReplayPoint.quantile(delays, 0.99));
  }
}
