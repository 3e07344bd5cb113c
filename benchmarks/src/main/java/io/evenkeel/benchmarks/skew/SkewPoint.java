package io.evenkeel.benchmarks.skew;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import io.evenkeel.benchmarks.skew.ScheduledRows.Group;
import io.evenkeel.benchmarks.skew.SkewRun.Measured;
import io.evenkeel.benchmarks.skew.SkewRun.Probe;
import io.evenkeel.benchmarks.skew.SkewRun.Query;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The figures of one system under one workload, over the measured span.
 *
 * @param offered rows due a second
 * @param searchable rows that became searchable a second ({@code COUNT} of the index)
 * @param delays per tenant group: write-to-searchable delay of its probes (ms)
 * @param queries per tenant group: tenant-query latency (ms) and shards visited
 * @param cpuSeconds per process kind, CPU seconds over the span
 * @param nodes per capped storage node: CPU used over the span (cores) and the share of periods it was throttled
 * @param timeline per second since the offer began: rows due, rows searchable, small tenants' median delay (ms)
 */
record SkewPoint(String system, String workload, double offered, double searchable, long backlogAtEnd,
    Map<Group, Delays> delays, Map<Group, Latencies> queries, Map<String, Double> cpuSeconds, List<Node> nodes,
    Timeline timeline, double surgeSmallP99Millis, double steadySmallP99Millis) {

  static final Delays EMPTY_DELAYS = new Delays(0, 0, Double.NaN, Double.NaN);
  static final Latencies EMPTY_LATENCIES = new Latencies(0, 0, Double.NaN, Double.NaN, Double.NaN);

  /** Probes of a group: how many, how many never found (counted at their wait so far), p50 and p99. */
  record Delays(int probes, int unseen, double p50Millis, double p99Millis) {}

  /**
   * Tenant queries of a group: how many were asked, how many of them the system refused as too busy, and of those it
   * answered p50 and p99 latency and mean shards visited.
   */
  record Latencies(int queries, int refused, double p50Millis, double p99Millis, double meanShards) {}

  /** A capped node over the span: CPU used (cores) and the share of scheduler periods in which it was throttled. */
  record Node(double cores, double throttledShare) {}

  record Timeline(double[] offered, double[] searchable, double[] smallDelayMillis) {}

  static SkewPoint of(String system, SkewWorkload workload, Measured run) {
    double span = (run.endNanos() - run.measureFromNanos()) / 1e9;
    double searchable = (SearchableWatch.Count.at(run.counts(), run.endNanos())
        - SearchableWatch.Count.at(run.counts(), run.measureFromNanos())) / span;
    List<Probe> measured = run.probes().stream()
        .filter(p -> p.dueNanos() >= run.measureFromNanos() && p.dueNanos() < run.endNanos()).toList();
    Map<Group, Delays> delays = new java.util.EnumMap<>(Group.class);
    SkewRun.byGroup(measured, Probe::group).forEach((group, probes) -> delays.put(group, delays(probes)));
    Map<Group, Latencies> queries = new java.util.EnumMap<>(Group.class);
    SkewRun.byGroup(run.queries().stream().filter(q -> q.atNanos() >= run.measureFromNanos()
        && q.atNanos() < run.endNanos()).toList(), Query::group).forEach((group, asked) -> {
          List<Query> answered = asked.stream().filter(q -> !q.refused()).toList();
          queries.put(group, new Latencies(asked.size(), asked.size() - answered.size(),
              SkewRun.quantile(millis(answered), 0.5), SkewRun.quantile(millis(answered), 0.99),
              answered.stream().mapToInt(Query::shards).average().orElse(Double.NaN)));
        });
    List<Node> nodes = run.spent().throttling().stream()
        .map(t -> new Node(t.usageSeconds() / span, t.periods() == 0 ? 0 : (double) t.throttledPeriods() / t.periods()))
        .toList();
    double surgeP99 = Double.NaN;
    double steadyP99 = Double.NaN;
    if (workload.hasSurge()) {
      long surgeStart = run.startNanos() + seconds(workload.surgeStart());
      long surgeEnd = run.startNanos() + seconds(workload.surgeEnd());
      steadyP99 = smallP99(run.probes(), run.measureFromNanos(), surgeStart);
      surgeP99 = smallP99(run.probes(), surgeStart, surgeEnd);
    }
    return new SkewPoint(system, workload.name(), workload.rate(), searchable, run.backlogAtEnd(), delays, queries,
        SkewRun.sumByName(run.spent().cpuSeconds()), nodes, timeline(workload, run), surgeP99, steadyP99);
  }

  /** CPU seconds of all the system's processes (and the benchmark's client) per 1,000 rows made searchable. */
  double cpuPerThousandRows(double spanSeconds) {
    return cpuSeconds.values().stream().mapToDouble(Double::doubleValue).sum() / (searchable * spanSeconds) * 1_000;
  }

  double served() {
    return searchable / offered;
  }

  private static Delays delays(List<Probe> probes) {
    double[] ms = probes.stream().mapToDouble(p -> p.delayNanos() / 1e6).toArray();
    return new Delays(ms.length, (int) probes.stream().filter(p -> !p.found()).count(), SkewRun.quantile(ms, 0.5),
        SkewRun.quantile(ms, 0.99));
  }

  private static double smallP99(List<Probe> probes, long from, long to) {
    return SkewRun.quantile(probes.stream().filter(p -> p.group() == Group.SMALL && p.dueNanos() >= from
        && p.dueNanos() < to).mapToDouble(p -> p.delayNanos() / 1e6).toArray(), 0.99);
  }

  private static double[] millis(List<Query> queries) {
    return queries.stream().mapToDouble(Query::millis).toArray();
  }

  private static Timeline timeline(SkewWorkload workload, Measured run) {
    int seconds = (int) Math.ceil(workload.totalSeconds());
    double[] offered = new double[seconds];
    double[] searchable = new double[seconds];
    double[] smallDelay = new double[seconds];
    for (int s = 0; s < seconds; s++) {
      long from = run.startNanos() + seconds(s);
      long to = from + seconds(1);
      offered[s] = workload.rate();
      searchable[s] = SearchableWatch.Count.at(run.counts(), to) - SearchableWatch.Count.at(run.counts(), from);
      smallDelay[s] = SkewRun.quantile(run.probes().stream().filter(p -> p.group() == Group.SMALL
          && p.dueNanos() >= from && p.dueNanos() < to).mapToDouble(p -> p.delayNanos() / 1e6).toArray(), 0.5);
    }
    return new Timeline(offered, searchable, smallDelay);
  }

  private static long seconds(double seconds) {
    return (long) (seconds * TimeUnit.SECONDS.toNanos(1));
  }
}
