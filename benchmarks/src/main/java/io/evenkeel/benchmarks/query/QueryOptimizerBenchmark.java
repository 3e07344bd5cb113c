package io.evenkeel.benchmarks.query;

import static io.evenkeel.benchmarks.query.BenchmarkFigures.intArg;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.mean;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.percentile;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.stringArg;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.Access;
import io.evenkeel.query.optimize.OptimizerRules;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.result.QueryResult;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.workload.RowGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.lucene.util.IOUtils;

/**
 * The optimizer on vs off (every predicate on its single-column index) on the same loaded shards: Zipf(1) tenants,
 * the top tenants spread over 4 shards; per top tenant, 1,000 queries with 3 to 10 predicate columns (tenant, a
 * created_time window, status IN, then more columns), ORDER BY created_time DESC LIMIT 20, one client thread. Each
 * query runs with both plans back to back and must give the same rows.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.QueryOptimizerBenchmark
 * [--rows N] [--queries N] [--top N] [--shards N] [--force-merge MAX_SEGMENTS] [--select ITEMS] [--window PERCENT,...]
 * [--out DIR] [--report FILE]}: besides its printout, {@code optimizer.csv} and {@code optimizer.png} (mean latency
 * against the number of predicate columns, ESDB's fig. 17) in {@code --out}, and its section of the report.
 */
public final class QueryOptimizerBenchmark {
  private static final int TENANTS = 10_000;

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = intArg(args, "--rows", 4_000_000);
    int queries = intArg(args, "--queries", 1_000);
    int top = intArg(args, "--top", 3);
    int numShards = intArg(args, "--shards", 4);
    int forceMerge = intArg(args, "--force-merge", 0);
    String select = stringArg(args, "--select", "row_id, created_time, status, price");
    List<Integer> windows = Stream.of(stringArg(args, "--window", "1,10,100").split(",")).map(String::trim)
        .map(Integer::parseInt).toList();
    Path out = Path.of(stringArg(args, "--out", "benchmarks/results/paper"));
    Path report = Path.of(stringArg(args, "--report", "benchmarks/REPORT.md"));
    Path work = Files.createTempDirectory("evenkeel-query-bench");
    RowGenerator generator = new RowGenerator(42, TENANTS, 1.0);
    long[] topTenants = IntStream.rangeClosed(1, top).mapToLong(rank -> generator.tenants().tenantAtRank(rank)).toArray();
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(numShards, List.of(Rule.grow(0, 4, topTenants))));
    try (LocalShards shards = new LocalShards(work.resolve("server"), numShards,
        new ShardSettings(Durability.INTERVAL, 200, 1_000, 600_000, 256))) {
      long loadStarted = System.nanoTime();
      Iterable<TransactionLogChange> generated = () -> Stream.generate(generator::next).limit(rows).iterator();
      shards.load(generated, policy);
      shards.waitForMerges();
      long last = RowGenerator.createdTime(rows - 1);
      System.out.printf(Locale.ROOT, "loaded %,d rows into %d shards in %.1f s; segments per shard %s%n", rows,
          numShards, (System.nanoTime() - loadStarted) / 1e9, shards.segmentCounts());
      if (forceMerge > 0) {
        long merging = System.nanoTime();
        shards.forceMerge(forceMerge);
        System.out.printf(Locale.ROOT, "force-merged in %.1f s; segments per shard %s%n",
            (System.nanoTime() - merging) / 1e9, shards.segmentCounts());
      }
      ShardPlacement placement = shards.placement();
      try (QueryService on = service(placement, policy, OptimizerRules.DEFAULT);
           QueryService off = service(placement, policy, OptimizerRules.PLAIN)) {
        long first = RowGenerator.startTime();
        List<Double> allOn = new ArrayList<>();
        List<Double> allOff = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        for (int window : windows) {
          System.out.printf(Locale.ROOT, "%ncreated_time window: %d%% of the data%n", window);
          compare(on, off, new Random(7), select, window, topTenants, queries, generator, first, last, allOn, allOff,
              samples);
        }
        String setup = String.format(Locale.ROOT, "%,d rows (Zipf θ = 1 over %,d tenants) in %d shards, the top %d"
            + " tenants each on 4 of them; per tenant and window %,d queries of 3-10 predicate columns, ORDER BY"
            + " created_time DESC LIMIT 20, one client, both plans back to back", rows, TENANTS, numShards, top,
            queries);
        OptimizerFigures.write(out, report, String.join(" ", args), setup, samples);
        if (windows.size() > 1) {
          System.out.printf(Locale.ROOT, "%nall %,d queries (windows %s): optimized mean %.2f ms, p99 %.2f ms; "
              + "plain mean %.2f ms, p99 %.2f ms; mean latency ratio %.2fx%n", allOn.size(), windows, mean(allOn),
              percentile(allOn, 0.99), mean(allOff), percentile(allOff, 0.99), mean(allOff) / mean(allOn));
        }
      }
    } finally {
      IOUtils.rm(work); // recursively
    }
  }

  /**
   * Runs every query with both plans, back to back, prints the latencies per tenant and overall, and adds them to
   * {@code totalOn} and {@code totalOff}.
   */
  private static void compare(QueryService on, QueryService off, Random random, String select, int window,
      long[] topTenants, int queries, RowGenerator generator, long first, long last, List<Double> totalOn,
      List<Double> totalOff, List<Sample> samples) {
    for (int i = 0; i < 200; i++) { // warm-up: JIT, caches
      String sql = query(random, select, window, topTenants[i % topTenants.length], i, first, last);
      on.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
      off.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
    }
    System.out.println("tenant  share  plan      mean ms   p50 ms   p99 ms   shard search ms (mean, summed over shards)");
    List<Double> allOn = new ArrayList<>();
    List<Double> allOff = new ArrayList<>();
    List<Double> allShardOn = new ArrayList<>();
    List<Double> allShardOff = new ArrayList<>();
    for (int rank = 0; rank < topTenants.length; rank++) {
      List<Double> timesOn = new ArrayList<>();
      List<Double> timesOff = new ArrayList<>();
      List<Double> shardOn = new ArrayList<>();
      List<Double> shardOff = new ArrayList<>();
      for (int i = 0; i < queries; i++) {
        String sql = query(random, select, window, topTenants[rank], i, first, last);
        QueryResult a = timed(on, sql, timesOn);
        QueryResult b = timed(off, sql, timesOff);
        if (!a.rows().equals(b.rows())) {
          throw new IllegalStateException("plans disagree on " + sql + ": " + a.rows() + " vs " + b.rows());
        }
        samples.add(new Sample(window, columns(i), timesOn.get(timesOn.size() - 1), timesOff.get(timesOff.size() - 1)));
        shardOn.add(a.shardSearchMicros() / 1e3);
        shardOff.add(b.shardSearchMicros() / 1e3);
      }
      String share = String.format(Locale.ROOT, "%.1f%%", 100 * generator.tenants().expectedShare(rank + 1));
      report(topTenants[rank], share, "optimized", timesOn, shardOn);
      report(topTenants[rank], share, "plain", timesOff, shardOff);
      allOn.addAll(timesOn);
      allOff.addAll(timesOff);
      allShardOn.addAll(shardOn);
      allShardOff.addAll(shardOff);
    }
    report(-1, "", "optimized", allOn, allShardOn);
    report(-1, "", "plain", allOff, allShardOff);
    System.out.printf(Locale.ROOT, "mean latency ratio plain / optimized: %.2fx end to end, %.2fx shard search%n",
        mean(allOff) / mean(allOn), mean(allShardOff) / mean(allShardOn));
    totalOn.addAll(allOn);
    totalOff.addAll(allOff);
  }

  /**
   * tenant = k, a created_time window of {@code window}% of the data (100: all of it, the tenant's latest rows),
   * status IN, then 0-7 more columns: 3-10 columns.
   */
  static String query(Random random, String select, int window, long tenant, int i, long first, long last) {
    long span = last - first;
    long from = first + (long) (random.nextDouble() * span * (100 - window) / 100);
    long to = from + span * window / 100;
    List<String> predicates = new ArrayList<>(List.of(
        "tenant_id = " + tenant,
        "created_time BETWEEN " + from + " AND " + to,
        "status IN (1, 2)",
        "quantity >= " + (1 + random.nextInt(3)),
        "price < " + (2_000 + random.nextInt(8_000)) + ".50",
        "group_id != " + random.nextInt(1_000),
        "buyer_id > " + random.nextInt(100_000),
        "seller_nick = 'seller-" + tenant + "'",
        "buyer_nick != 'buyer-" + random.nextInt(100_000) + "'",
        "modified_time >= " + from));
    int columns = columns(i);
    return "SELECT " + select + " FROM transaction_logs WHERE "
        + String.join(" AND ", predicates.subList(0, columns)) + " ORDER BY created_time DESC LIMIT 20";
  }

  /** How many predicate columns query {@code i} has: 3 to 10, in turn. */
  static int columns(int i) {
    return 3 + i % 8;
  }

  /** One query's latency with both plans: its created_time window (% of the data) and predicate columns. */
  record Sample(int window, int columns, double optimizedMs, double plainMs) {}

  /**
   * The scan list for this workload: columns whose predicates keep most rows (status IN two of six values, quantity,
   * price, buyer_id and modified_time lower bounds, != on group_id and buyer_nick) are cheaper to check in doc values
   * over the composite index's few candidates than to look up in their own index.
   */
  static final Set<String> SCAN_LIST = Set.of("status", "quantity", "price", "group_id", "buyer_id", "buyer_nick",
      "modified_time");

  private static QueryService service(ShardPlacement placement, RoutingPolicy policy,
      List<io.evenkeel.query.optimize.AccessRule> rules) {
    return QueryService.builder().placement(placement).routingPolicy(() -> policy)
        .optimizer(OptimizerSettings.defaults().withScanColumns(SCAN_LIST).withRules(rules))
        .deadline(Duration.ofSeconds(30)).build();
  }

  private static QueryResult timed(QueryService service, String sql, List<Double> times) {
    long started = System.nanoTime();
    QueryResult result = service.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
    times.add((System.nanoTime() - started) / 1e6);
    return result;
  }

  private static void report(long tenant, String share, String plan, List<Double> times, List<Double> shard) {
    double[] sorted = times.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    System.out.printf(Locale.ROOT, "%-7s %-6s %-9s %8.2f %8.2f %8.2f %8.2f%n", tenant < 0 ? "all" : Long.toString(tenant),
        share, plan, mean(times), percentile(sorted, 0.50), percentile(sorted, 0.99), mean(shard));
  }
}
