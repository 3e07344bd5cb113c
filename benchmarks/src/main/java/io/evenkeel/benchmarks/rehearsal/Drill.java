package io.evenkeel.benchmarks.rehearsal;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One fault of the rehearsal under its steady load, and what a user saw of it. The fault stands for {@code observe}
 * at least, and until a row sent after that is found by SQL; then the repair runs (the lost process started again).
 * A row's write-to-searchable delay runs from its send until SQL finds it. Ingest's longest stop is the longest
 * time after the fault in which rows sent waited and SQL found none, and ingest resumed at its end: a fault may stop
 * ingest at once (a shard server's) or only once it is noticed (a JobManager's, when its task managers miss its
 * heartbeats), so the first row found after the fault does not tell; and a time in which the load sent nothing is
 * not ingest's (the longest such pause is reported beside it). The longest delay of the rows sent while the fault
 * stood tells how long until ingest had caught up with the backlog; the longest of those sent during the repair, what
 * the repair cost (a server rejoining, copies moving back).
 *
 * @param name what was done
 * @param stoppedSeconds ingest's longest stop after the fault: the longest time rows waited and none was found (a
 *     fault that does not stop ingest leaves the pauses of a steady flow, a second or two); NaN without a fault
 * @param resumedSeconds from the fault until the end of that stop; NaN without a fault
 * @param sendPauseSeconds the longest time without a row sent, from the fault to the end of the repair
 * @param faultStallSeconds the longest delay of a row sent while the fault stood; NaN without a fault
 * @param repairStallSeconds the longest delay of a row sent during the repair
 * @param queryGapSeconds the longest time without an answered query, from the fault to the end of the repair
 * @param tookSeconds from the fault to the end of the repair
 */
public record Drill(String name, double stoppedSeconds, double resumedSeconds, double sendPauseSeconds,
    double faultStallSeconds, double repairStallSeconds, double queryGapSeconds, double tookSeconds) {
  private static final long FOUND_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(3);

  /** A step of a drill that may fail. */
  public interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code fault}, lets it stand for {@code observe} and until a row sent after it is found (at most 3 minutes),
   * runs {@code repair}, waits until a row sent after the repair is found, and measures. Without a fault (null) the
   * repair is the drill (a rolling restart).
   */
  public static Drill run(String name, SearchableWatch watch, Duration observe, Step fault, Step repair)
      throws Exception {
    long at = System.nanoTime();
    double stopped = Double.NaN;
    double resumed = Double.NaN;
    if (fault != null) {
      fault.run();
      long rest = at + observe.toNanos() - System.nanoTime();
      if (rest > 0) {
        TimeUnit.NANOSECONDS.sleep(rest);
      }
      Optional<Long> flowing = awaitFoundAfter(watch, at + observe.toNanos());
      if (flowing.isEmpty()) {
        stopped = Double.POSITIVE_INFINITY;
        resumed = Double.POSITIVE_INFINITY;
      } else {
        Stop stop = longestStop(watch.probes(), at, flowing.get());
        stopped = (stop.end() - stop.start()) / 1e9;
        resumed = (stop.end() - at) / 1e9;
      }
    }
    long repairing = System.nanoTime();
    repair.run();
    long repaired = System.nanoTime();
    awaitFoundAfter(watch, repaired);
    List<SearchableWatch.Probe> probes = watch.probes();
    return new Drill(name, stopped, resumed, longestSendPause(probes, at, repaired) / 1e9,
        fault == null ? Double.NaN : longestDelay(probes, at, repairing),
        longestDelay(probes, repairing, repaired), longestGap(watch.counts(), at, repaired) / 1e9,
        (repaired - at) / 1e9);
  }

  /** The longest delay, in seconds, of the probes sent in [{@code from}, {@code to}). */
  private static double longestDelay(List<SearchableWatch.Probe> probes, long from, long to) {
    return probes.stream().filter(probe -> probe.sentNanos() >= from && probe.sentNanos() < to)
        .mapToLong(SearchableWatch.Probe::delayNanos).max().orElse(0) / 1e9;
  }

  /** A time in which rows waited and none was found, in {@code System.nanoTime()}. */
  record Stop(long start, long end) {}

  /**
   * The longest time in [{@code from}, {@code to}] in which a probe sent waited and none was found: ingest's longest
   * stop. A time between two finds counts from the later of the first find and the earliest send of a probe found
   * after it, so a pause of the load is not taken for one of ingest.
   */
  static Stop longestStop(List<SearchableWatch.Probe> probes, long from, long to) {
    List<SearchableWatch.Probe> found = probes.stream().filter(SearchableWatch.Probe::found)
        .sorted(Comparator.comparingLong(Drill::foundNanos)).toList();
    long[] earliestSend = new long[found.size() + 1]; // [i]: the earliest send of the probes found i-th or later
    earliestSend[found.size()] = Long.MAX_VALUE;
    for (int i = found.size() - 1; i >= 0; i--) {
      earliestSend[i] = Math.min(earliestSend[i + 1], found.get(i).sentNanos());
    }
    long last = from;
    Stop longest = new Stop(from, from);
    for (int i = 0; i < found.size(); i++) {
      long nanos = foundNanos(found.get(i));
      if (nanos <= from) {
        continue;
      }
      if (nanos > to) {
        break;
      }
      long waitedSince = Math.max(last, earliestSend[i]);
      if (nanos - waitedSince > longest.end() - longest.start()) {
        longest = new Stop(waitedSince, nanos);
      }
      last = nanos;
    }
    return longest;
  }

  private static long foundNanos(SearchableWatch.Probe probe) {
    return probe.sentNanos() + probe.delayNanos();
  }

  /** The longest time in [{@code from}, {@code to}] without a probe sent, in nanoseconds. */
  static long longestSendPause(List<SearchableWatch.Probe> probes, long from, long to) {
    return longestGap(probes.stream().mapToLong(SearchableWatch.Probe::sentNanos).sorted().toArray(), from, to);
  }

  /** When the first probe sent at or after {@code since} was found, once one is (empty after 3 minutes). */
  public static Optional<Long> awaitFoundAfter(SearchableWatch watch, long since) throws InterruptedException {
    long deadline = System.nanoTime() + FOUND_TIMEOUT_NANOS;
    while (System.nanoTime() < deadline) {
      Optional<Long> found = watch.probes().stream().filter(probe -> probe.found() && probe.sentNanos() >= since)
          .map(probe -> probe.sentNanos() + probe.delayNanos()).min(Long::compare);
      if (found.isPresent()) {
        return found;
      }
      Thread.sleep(100);
    }
    return Optional.empty();
  }

  /** The longest time in [{@code from}, {@code to}] between two answered counts (or an end and the nearest one). */
  static long longestGap(List<SearchableWatch.Count> counts, long from, long to) {
    return longestGap(counts.stream().mapToLong(SearchableWatch.Count::nanos).toArray(), from, to);
  }

  /** The longest time in [{@code from}, {@code to}] between two of {@code nanos} (in order), or an end and one. */
  private static long longestGap(long[] nanos, long from, long to) {
    long last = from;
    long longest = 0;
    for (long at : nanos) {
      if (at < from) {
        continue;
      }
      longest = Math.max(longest, at - last);
      if (at > to) {
        return longest;
      }
      last = at;
    }
    return Math.max(longest, to - last);
  }

  /** Seconds with one decimal, a dash for none, or "> 180" for what did not happen in 3 minutes. */
  static String seconds(double value) {
    if (Double.isInfinite(value)) {
      return "> " + TimeUnit.NANOSECONDS.toSeconds(FOUND_TIMEOUT_NANOS);
    }
    return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%.1f", value);
  }
}
