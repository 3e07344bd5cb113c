package io.evenkeel.benchmarks.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.replay.TraceSpec;
import io.evenkeel.workload.RowGenerator;
import io.evenkeel.workload.ZipfTenants;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ESDB's fig. 16 on the real stack: one client's queries for the ten hottest tenants of a trace and for ten small
 * ones (popularity ranks 100, 110, ..., 190), after the trace is replayed: an aggregate over all of a tenant's rows
 * and its 20 newest rows, each {@code ROUNDS} times after one unmeasured round. Fan-out is the shards EXPLAIN's
 * route names.
 */
final class TenantQueries {
  static final String AGGREGATE = "SELECT COUNT(*), SUM(price) FROM transaction_logs WHERE tenant_id = ?";
  static final String NEWEST = "SELECT row_id, price FROM transaction_logs WHERE tenant_id = ?"
      + " ORDER BY created_time DESC LIMIT 20";
  private static final int ROUNDS = 5;
  private static final Pattern ROUTE = Pattern.compile("^route: (\\d+) of");

  /** One group's figures: median latencies, queries a second for one client, mean shards visited. */
  record Group(String name, double aggregateP50Millis, double newestP50Millis, double queriesPerSecond,
      double fanOut) {}

  private TenantQueries() {}

  /** The hot group and the small group, for the tenants of {@code spec} (its seed fixes who is hot). */
  static List<Group> measure(EvenkeelPeer stack, TraceSpec spec) throws IOException, InterruptedException {
    ZipfTenants tenants = new RowGenerator(spec.seed(), spec.tenants(), spec.theta()).tenants();
    List<Long> hot = new ArrayList<>();
    List<Long> small = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      hot.add(tenants.tenantAtRank(Math.min(spec.tenants(), i + 1)));
      small.add(tenants.tenantAtRank(Math.min(spec.tenants(), 100 + 10 * i)));
    }
    return List.of(group(stack, "top 10 tenants", hot), group(stack, "small tenants", small));
  }

  private static Group group(EvenkeelPeer stack, String name, List<Long> tenants)
      throws IOException, InterruptedException {
    List<Double> aggregate = new ArrayList<>();
    List<Double> newest = new ArrayList<>();
    double shards = 0;
    for (long tenant : tenants) {
      shards += fanOut(stack, tenant);
    }
    for (int round = 0; round <= ROUNDS; round++) {
      for (long tenant : tenants) {
        double a = timed(stack, AGGREGATE, tenant);
        double n = timed(stack, NEWEST, tenant);
        if (round > 0) {
          aggregate.add(a);
          newest.add(n);
        }
      }
    }
    double meanMillis = (aggregate.stream().mapToDouble(Double::doubleValue).sum()
        + newest.stream().mapToDouble(Double::doubleValue).sum()) / (aggregate.size() + newest.size());
    return new Group(name, median(aggregate), median(newest), 1000 / meanMillis, shards / tenants.size());
  }

  private static double timed(EvenkeelPeer stack, String sql, long tenant) throws IOException, InterruptedException {
    long started = System.nanoTime();
    stack.rows(sql, List.of(tenant));
    return (System.nanoTime() - started) / 1e6;
  }

  private static int fanOut(EvenkeelPeer stack, long tenant) throws IOException, InterruptedException {
    for (JsonNode line : stack.rows("EXPLAIN " + AGGREGATE, List.of(tenant))) {
      Matcher route = ROUTE.matcher(line.get(0).asText().strip());
      if (route.find()) {
        return Integer.parseInt(route.group(1));
      }
    }
    throw new IOException("EXPLAIN names no route for tenant " + tenant);
  }

  private static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return ReplayPoint.quantile(sorted, 0.5);
  }
}
