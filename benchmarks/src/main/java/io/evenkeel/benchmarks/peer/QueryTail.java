package io.evenkeel.benchmarks.peer;

import io.evenkeel.benchmarks.peer.PeerQueries.PeerQuery;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * What Evenkeel's slowest queries of a group have in common, against the same queries on OpenSearch: whether the
 * tail is queries that are heavy on both (their conditions, their window), or queries slow on Evenkeel alone and
 * where the time went (the server's own time or the way to it and back).
 */
final class QueryTail {
  /** The optional conditions a tenant query may carry, by what their SQL starts with. */
  private static final List<String> CONDITIONS = List.of("status IN", "seller_nick", "buyer_nick", "quantity",
      "modified_time", "price BETWEEN", "group_id IS NOT NULL", "MATCH(title)");
  private static final long HOUR = 3_600_000L;

  private QueryTail() {}

  /**
   * One line on the slowest 1% of {@code timed} (at least 3) by Evenkeel's client latency; the arrays are in the
   * order of {@code timed}.
   */
  static String describe(String group, List<PeerQuery> timed, double[] evenkeelMs, double[] evenkeelServerMs,
      double[] openSearchMs) {
    int n = timed.size();
    int tail = Math.max(3, (int) Math.ceil(n * 0.01));
    int[] slowest = IntStream.range(0, n).boxed().sorted(Comparator.comparingDouble(i -> -evenkeelMs[i]))
        .limit(tail).mapToInt(Integer::intValue).toArray();
    double openSearchTop5 = percentile(openSearchMs, 0.95);
    long alsoSlowThere = Arrays.stream(slowest).filter(i -> openSearchMs[i] >= openSearchTop5).count();
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s: Evenkeel's slowest %d of %d queries took "
        + "%.1f ms at the median (server %.1f ms; the group's p50 %.1f); OpenSearch took %.1f ms on the same queries "
        + "(its p50 %.1f), %d of them among its slowest 5%%", group, tail, n, median(evenkeelMs, slowest),
        median(evenkeelServerMs, slowest), percentile(evenkeelMs, 0.5), median(openSearchMs, slowest),
        percentile(openSearchMs, 0.5), alsoSlowThere));
    Map<String, String> overRepresented = new LinkedHashMap<>();
    for (String condition : CONDITIONS) {
      long inTail = Arrays.stream(slowest).filter(i -> timed.get(i).sql().contains(condition)).count();
      long inAll = timed.stream().filter(q -> q.sql().contains(condition)).count();
      if (inTail > 0 && (double) inTail / tail >= 2.0 * inAll / n) {
        overRepresented.put(condition, String.format(Locale.ROOT, "%d of %d (%.0f%% of all)", inTail, tail,
            100.0 * inAll / n));
      }
    }
    for (long hours : new long[] {1, 6, 24, 72}) {
      long inTail = Arrays.stream(slowest).filter(i -> windowHours(timed.get(i)) == hours).count();
      long inAll = timed.stream().filter(q -> windowHours(q) == hours).count();
      if (inTail > 0 && (double) inTail / tail >= 2.0 * inAll / n) {
        overRepresented.put("a " + hours + " h window", String.format(Locale.ROOT, "%d of %d (%.0f%% of all)", inTail,
            tail, 100.0 * inAll / n));
      }
    }
    line.append(overRepresented.isEmpty() ? "; no condition or window is twice as frequent among them as overall"
        : "; twice as frequent among them as overall: " + overRepresented.toString().replaceAll("[{}]", "")
            .replace('=', ' '));
    return line.append('.').toString();
  }

  /** The created_time window of a tenant query (its 2nd and 3rd parameters), in hours; 0 if it has none. */
  private static long windowHours(PeerQuery query) {
    List<Object> params = query.params();
    if (params.size() < 3 || !(params.get(1) instanceof Long from) || !(params.get(2) instanceof Long to)) {
      return 0;
    }
    return (to - from) / HOUR;
  }

  private static double median(double[] values, int[] at) {
    return percentile(Arrays.stream(at).mapToDouble(i -> values[i]).toArray(), 0.5);
  }

  private static double percentile(double[] values, double p) {
    return new PeerBenchmark.Latencies(values).percentile(p);
  }
}
