package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.EvenkeelPeer.ShardDocs;
import io.evenkeel.benchmarks.query.BenchmarkFigures;
import io.evenkeel.benchmarks.replay.TraceReplayer;
import io.evenkeel.benchmarks.replay.TraceSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * One replay of a trace into a running stack at the trace's own pace, measured as a user sees it, over the replay
 * after its warm-up.
 *
 * @param offered new rows sent a second
 * @param throughput rows that became searchable a second ({@code COUNT(*)}); above {@code offered} when a backlog
 *     from the warm-up drains
 * @param delayP50Millis the median probe's time from its send to being found by SQL; probes never found count at
 *     their wait so far, so that an overloaded policy's delay is a lower bound
 * @param probes probes sent after the warm-up
 * @param unseen of those, the ones not found by the end of the grace period
 * @param timeline rows that became searchable in each second since the replay began, grace period included
 * @param spread how evenly the rows fell over the shards and servers
 */
record ReplayPoint(String policy, TraceSpec spec, double offered, double throughput, double delayP50Millis,
    double delayP99Millis, int probes, int unseen, int rules, double[] timeline, ShardSpread spread) {

  static ReplayPoint measure(String policy, TraceSpec spec, Path trace, EvenkeelPeer stack, StackSetup setup)
      throws Exception {
    SearchableWatch watch = new SearchableWatch(stack, setup.probeEvery());
    long start;
    long end;
    long offered;
    List<ShardDocs> before = stack.shardDocs();
    List<ShardDocs> afterWarmup;
    List<ShardDocs> atEnd;
    try (watch) {
      start = System.nanoTime();
      CompletableFuture<List<ShardDocs>> warmedUp = CompletableFuture.supplyAsync(() -> {
        try {
          return stack.shardDocs();
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      }, CompletableFuture.delayedExecutor(nanos(setup.warmupSeconds()), TimeUnit.NANOSECONDS));
      TraceReplayer.atSpeed(trace, stack.bootstrapServers(), 1).onSend(watch::sent).call();
      end = System.nanoTime();
      atEnd = stack.shardDocs();
      afterWarmup = warmedUp.join();
      watch.awaitProbes(nanos(setup.graceSeconds()));
      offered = watch.insertsBetween(start + nanos(setup.warmupSeconds()), end);
    }
    return of(policy, spec, start, start + nanos(setup.warmupSeconds()), end, offered, watch.probes(), watch.counts(),
        stack.committedRules(), ShardSpread.of(before, afterWarmup, atEnd, stack.shardDocs()));
  }

  /**
   * The figures of a replay that began at {@code start} and ended at {@code end}, measured from {@code from} (after
   * the warm-up), with {@code offeredRows} new rows sent from then on.
   */
  static ReplayPoint of(String policy, TraceSpec spec, long start, long from, long end, long offeredRows,
      List<SearchableWatch.Probe> probes, List<SearchableWatch.Count> counts, int rules, ShardSpread spread) {
    double measured = (end - from) / 1e9;
    ProbeDelays delays = ProbeDelays.of(probes, from, end);
    double[] timeline = new double[(int) ((counts.get(counts.size() - 1).nanos() - start) / 1_000_000_000L)];
    for (int second = 0; second < timeline.length; second++) {
      timeline[second] = SearchableWatch.Count.at(counts, start + nanos(second + 1))
          - SearchableWatch.Count.at(counts, start + nanos(second));
    }
    return new ReplayPoint(policy, spec, offeredRows / measured,
        (SearchableWatch.Count.at(counts, end) - SearchableWatch.Count.at(counts, from)) / measured,
        delays.p50Millis(), delays.p99Millis(), delays.probes(), delays.unseen(), rules, timeline, spread);
  }

  /** Served: throughput over offered. */
  double served() {
    return throughput / offered;
  }

  /** The nearest-rank quantile of sorted values, NaN for none. */
  static double quantile(double[] sorted, double q) {
    return sorted.length == 0 ? Double.NaN : BenchmarkFigures.percentile(sorted, q);
  }

  private static long nanos(double seconds) {
    return (long) (seconds * TimeUnit.SECONDS.toNanos(1));
  }
}
