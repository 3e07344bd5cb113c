package io.evenkeel.benchmarks.rehearsal;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One fault of the rehearsal under its steady load, and what a user saw of it. The fault stands for {@code observe}
 * at least, and until a row sent after that is found by SQL; then the repair runs (the lost process started again).
 * A row's write-to-searchable delay runs from its send until SQL finds it. Ingest resumed at the end of the longest
 * time after the fault in which SQL found no new row: a fault may stop ingest at once (a shard server's) or only once
 * it is noticed (a JobManager's, when its task managers miss its heartbeats), so the first row found after the fault
 * does not tell. The longest delay of the rows sent while the fault stood tells how long until ingest had caught up
 * with the backlog; the longest of those sent during the repair, what the repair cost (a server rejoining, copies
 * moving back).
 *
 * @param name what was done
 * @param resumedSeconds from the fault until ingest ran again after its longest stop; NaN without a fault
 * @param faultStallSeconds the longest delay of a row sent while the fault stood; NaN without a fault
 * @param repairStallSeconds the longest delay of a row sent during the repair
 * @param queryGapSeconds the longest time without an answered query, from the fault to the end of the repair
 * @param tookSeconds from the fault to the end of the repair
 */
public record Drill(String name, double resumedSeconds, double faultStallSeconds, double repairStallSeconds,
    double queryGapSeconds, double tookSeconds) {
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
    double resumed = Double.NaN;
    if (fault != null) {
      fault.run();
      long rest = at + observe.toNanos() - System.nanoTime();
      if (rest > 0) {
        TimeUnit.NANOSECONDS.sleep(rest);
      }
      Optional<Long> flowing = awaitFoundAfter(watch, at + observe.toNanos());
      resumed = flowing.isEmpty() ? Double.POSITIVE_INFINITY
          : (resumedAt(foundNanos(watch.probes()), at, flowing.get()) - at) / 1e9;
    }
    long repairing = System.nanoTime();
    repair.run();
    long repaired = System.nanoTime();
    awaitFoundAfter(watch, repaired);
    List<SearchableWatch.Probe> probes = watch.probes();
    return new Drill(name, resumed, fault == null ? Double.NaN : longestDelay(probes, at, repairing),
        longestDelay(probes, repairing, repaired), longestGap(watch.counts(), at, repaired) / 1e9,
        (repaired - at) / 1e9);
  }

  /** The longest delay, in seconds, of the probes sent in [{@code from}, {@code to}). */
  private static double longestDelay(List<SearchableWatch.Probe> probes, long from, long to) {
    return probes.stream().filter(probe -> probe.sentNanos() >= from && probe.sentNanos() < to)
        .mapToLong(SearchableWatch.Probe::delayNanos).max().orElse(0) / 1e9;
  }

  /** When each probe found was found, in order. */
  private static List<Long> foundNanos(List<SearchableWatch.Probe> probes) {
    return probes.stream().filter(SearchableWatch.Probe::found).map(probe -> probe.sentNanos() + probe.delayNanos())
        .sorted().toList();
  }

  /**
   * The end of the longest time in [{@code from}, {@code to}] without a row found ({@code found}: when rows were
   * found, in order): when ingest ran again after its longest stop.
   */
  static long resumedAt(List<Long> found, long from, long to) {
    long last = from;
    long longest = 0;
    long end = from;
    for (long nanos : found) {
      if (nanos <= from) {
        continue;
      }
      if (nanos > to) {
        break;
      }
      if (nanos - last > longest) {
        longest = nanos - last;
        end = nanos;
      }
      last = nanos;
    }
    return end;
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
    long last = from;
    long longest = 0;
    for (SearchableWatch.Count count : counts) {
      if (count.nanos() < from) {
        continue;
      }
      longest = Math.max(longest, count.nanos() - last);
      if (count.nanos() > to) {
        return longest;
      }
      last = count.nanos();
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
