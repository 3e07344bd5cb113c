package io.evenkeel.query.frequency;

import io.evenkeel.cluster.attributes.HotAttributeList;
import io.evenkeel.query.parse.AttributeFrequency;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frequency-based indexing, automatic: every interval, the query service that leads the election takes the attribute
 * keys its queries used most over the last window (top {@code top} with at least {@code minQueries} queries, as ESDB
 * indexes its top 30 of 1,500 keys) and publishes them as the cluster's list ({@link HotAttributeList}), which the
 * shard servers index from then on. Each party's queries of a key (a tenant's, or a tenant key's) count up to {@code
 * minQueries} in a window: one tenant can make a key hot by itself, but its flood of queries cannot outweigh the keys
 * several tenants use, nor push them out of the list. A listed key stays while it keeps half the minimum, so a key near the bar is not
 * added and dropped window after window. Nothing is published before one whole window has been counted (a service
 * that just started would otherwise drop the list its predecessor published), nor from a window with fewer queries
 * on attributes than the minimum (a quiet night would otherwise drop every key, and the morning's rows would be
 * written unindexed).
 */
public final class HotAttributePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HotAttributePublisher.class);

  /**
   * How the list is chosen.
   *
   * @param top the most keys the list holds
   * @param minQueries the queries in a window that make a key hot; a listed key stays above half of it
   * @param interval how often the list is chosen again
   * @param windowIntervals how many intervals the counts cover
   */
  public record Settings(int top, long minQueries, Duration interval, int windowIntervals) {
    public static final Settings DEFAULT = new Settings(30, 100, Duration.ofMinutes(1), 10);

    public Settings {
      if (top < 0 || minQueries < 1 || interval.isNegative() || interval.isZero() || windowIntervals < 1) {
        throw new IllegalArgumentException("hot attribute settings need top >= 0, minQueries >= 1, a positive"
            + " interval and windowIntervals >= 1; got: " + top + ", " + minQueries + ", " + interval + ", "
            + windowIntervals);
      }
    }
  }

  private final AttributeFrequency frequency;
  private final HotAttributeList list;
  private final BooleanSupplier leading;
  private final Settings settings;
  private final Deque<Map<String, Map<String, Long>>> intervals = new ArrayDeque<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "hot-attribute-publisher");
    thread.setDaemon(true);
    return thread;
  });

  /** Publishes to {@code list} whenever {@code leading} says this service leads. */
  public HotAttributePublisher(AttributeFrequency frequency, HotAttributeList list, BooleanSupplier leading,
      Settings settings) {
    this.frequency = frequency;
    this.list = list;
    this.leading = leading;
    this.settings = settings;
  }

  public HotAttributePublisher start() {
    // What was counted before belongs to no whole interval.
    frequency.takeInterval();
    long every = settings.interval().toMillis();
    timer.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
    return this;
  }

  private void tick() {
    try {
      intervals.add(frequency.takeInterval());
      if (intervals.size() < settings.windowIntervals()) {
        return;
      }
      while (intervals.size() > settings.windowIntervals()) {
        intervals.removeFirst();
      }
      if (!leading.getAsBoolean()) {
        return;
      }
      SortedSet<String> listed = list.current().keys();
      SortedSet<String> next = choose(weighted(intervals, settings.minQueries()), listed, settings);
      if (!next.equals(listed) && list.publish(next)) {
        LOG.info("published the hot attribute keys: {}", next);
      }
    } catch (Exception e) {
      LOG.warn("could not choose or publish the hot attribute keys; trying again in {}: {}", settings.interval(),
          e.toString());
    }
  }

  /**
   * The queries per key over a window's intervals (each a map of key to party to queries), each party's counted up
   * to {@code perPartyCap}.
   */
  static Map<String, Long> weighted(Collection<Map<String, Map<String, Long>>> intervals, long perPartyCap) {
    Map<String, Map<String, Long>> byKey = new HashMap<>();
    for (Map<String, Map<String, Long>> interval : intervals) {
      interval.forEach((key, parties) -> parties.forEach((party, queries) ->
          byKey.computeIfAbsent(key, k -> new HashMap<>()).merge(party, queries, Long::sum)));
    }
    Map<String, Long> counts = new HashMap<>();
    byKey.forEach((key, parties) -> counts.put(key, parties.values().stream()
        .mapToLong(queries -> Math.min(queries, perPartyCap)).sum()));
    return counts;
  }

  /**
   * The list for a window's counts: the keys at or above the minimum, and the listed keys at or above half of it,
   * most used first (ties by key), at most {@code top}; keys no row could hold are left out. A window with fewer
   * queries in all than the minimum keeps the listed keys.
   */
  static SortedSet<String> choose(Map<String, Long> counts, Set<String> listed, Settings settings) {
    if (counts.values().stream().mapToLong(Long::longValue).sum() < settings.minQueries()) {
      return new TreeSet<>(listed);
    }
    return counts.entrySet().stream()
        .filter(e -> HotAttributeList.isValidKey(e.getKey()))
        .filter(e -> e.getValue() >= settings.minQueries()
            || listed.contains(e.getKey()) && 2 * e.getValue() >= settings.minQueries())
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()))
        .limit(settings.top())
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Override
  public void close() throws InterruptedException {
    timer.shutdownNow();
    timer.awaitTermination(10, TimeUnit.SECONDS);
  }
}
