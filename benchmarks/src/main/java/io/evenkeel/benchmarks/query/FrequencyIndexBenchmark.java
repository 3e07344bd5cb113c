package io.evenkeel.benchmarks.query;

import static io.evenkeel.benchmarks.query.BenchmarkFigures.intArg;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.mean;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.percentile;

import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.Access;
import io.evenkeel.expr.TableRow;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Frequency-based indexing on vs off: the same rows (about ten attributes each from ~1,500 Zipf-popular keys) in
 * shards that index the 10 most frequent keys as fields and in shards that index none. Queries filter a tenant's
 * rows on one of those keys ({@code COUNT(*)} and a top-20 page, alternately); with the index the shards answer them,
 * without it the service scans the stored attributes of the tenant's rows. A third service sends the same filters
 * to the shards that index none, as right after the keys became hot (the rows were written before): the shards scan
 * their stored rows. Then those shards list the keys too, their server indexes the rows again in the background (at
 * {@code --reindex-rate} rows a second, the shard server's default unless given), and the third service's queries
 * run once more. Reports mean and p99 latency, the index size after a commit, and how long the re-indexing took.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.FrequencyIndexBenchmark
 * [--rows N] [--queries N] [--reindex-rate ROWS_PER_SECOND] [--out DIR] [--report FILE]}: besides its printout,
 * {@code frequency-index.csv} and {@code frequency-index.png} (the latency distributions, ESDB's fig. 18) in {@code
 * --out}, and its section of the report.
 */
public final class FrequencyIndexBenchmark {
  private static final int SHARDS = 8;
  private static final int HOT_KEYS = 10;

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rowCount = intArg(args, "--rows", 1_000_000);
    int queries = intArg(args, "--queries", 500);
    double reindexRate = Double.parseDouble(BenchmarkFigures.stringArg(args, "--reindex-rate",
        Double.toString(ShardSettings.DEFAULT_REINDEX_RATE)));
    Path out = Path.of(BenchmarkFigures.stringArg(args, "--out", "benchmarks/results/paper"));
    Path report = Path.of(BenchmarkFigures.stringArg(args, "--report", "benchmarks/REPORT.md"));
    RowGenerator generator = new RowGenerator(42, 10_000, 1.0);
    List<TransactionLogChange> rows = new ArrayList<>(rowCount);
    Map<String, Integer> keyCounts = new HashMap<>();
    for (int i = 0; i < rowCount; i++) {
      TransactionLogChange row = generator.next();
      rows.add(row);
      TableRow.parseAttributes(row.getAttributes()).keySet().forEach(key -> keyCounts.merge(key, 1, Integer::sum));
    }
    Set<String> hot = new LinkedHashSet<>();
    keyCounts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(HOT_KEYS).forEach(e -> hot.add(e.getKey()));
    long[] tenants = IntStream.rangeClosed(1, 20).mapToLong(rank -> generator.tenants().tenantAtRank(rank)).toArray();
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(SHARDS, List.of(Rule.grow(0, 4, tenants[0], tenants[1],
        tenants[2]))));
    Path work = Files.createTempDirectory("evenkeel-frequency-bench");
    ShardSettings plainSettings = settings(Set.of()).withReindexRate(reindexRate);
    try (LocalShards indexed = new LocalShards(work.resolve("hot"), SHARDS, settings(hot));
         LocalShards plain = new LocalShards(work.resolve("none"), SHARDS, plainSettings)) {
      indexed.load(rows, policy);
      plain.load(rows, policy);
      long indexedBytes = indexed.committedIndexBytes();
      long plainBytes = plain.committedIndexBytes();
      try (QueryService on = QueryService.builder().placement(indexed.placement()).routingPolicy(() -> policy)
              .optimizer(OptimizerSettings.defaults().withHotAttributes(hot)).deadline(Duration.ofSeconds(60)).build();
           QueryService off = QueryService.builder().placement(plain.placement()).routingPolicy(() -> policy)
              .deadline(Duration.ofSeconds(60)).build();
           QueryService listed = QueryService.builder().placement(plain.placement()).routingPolicy(() -> policy)
              .optimizer(OptimizerSettings.defaults().withHotAttributes(hot)).deadline(Duration.ofSeconds(60))
              .build()) {
        Random random = new Random(7);
        List<String> hotKeys = new ArrayList<>(hot);
        for (int i = 0; i < 50; i++) { // warm-up
          String sql = query(random, tenants, hotKeys, i);
          on.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
          off.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
          listed.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
        }
        List<Double> timesOn = new ArrayList<>();
        List<Double> timesOff = new ArrayList<>();
        List<Double> timesListed = new ArrayList<>();
        for (int i = 0; i < queries; i++) {
          String sql = query(random, tenants, hotKeys, i);
          QueryResult a = timed(on, sql, timesOn);
          QueryResult b = timed(off, sql, timesOff);
          QueryResult c = timed(listed, sql, timesListed);
          if (!a.rows().equals(b.rows()) || !a.rows().equals(c.rows())) {
            throw new IllegalStateException("indexed and scanned answers differ for " + sql);
          }
        }
        // The keys become hot on the shards that had none: their server indexes the rows again in the background.
        long listedAt = System.nanoTime();
        plainSettings.hotAttributes().set(hot);
        while (plain.unindexedRows() > 0) {
          Thread.sleep(200);
        }
        double reindexSeconds = (System.nanoTime() - listedAt) / 1e9;
        List<Double> timesReindexed = new ArrayList<>();
        for (int i = 0; i < queries; i++) {
          String sql = query(random, tenants, hotKeys, i);
          QueryResult a = timed(on, sql, new ArrayList<>());
          QueryResult d = timed(listed, sql, timesReindexed);
          if (!a.rows().equals(d.rows())) {
            throw new IllegalStateException("indexed and re-indexed answers differ for " + sql);
          }
        }
        System.out.printf(Locale.ROOT, "%,d rows, %d shards, hot keys %s%n", rowCount, SHARDS, hot);
        System.out.println("attribute index   mean ms   p99 ms   index MB");
        System.out.printf(Locale.ROOT, "hot keys indexed %8.2f %8.2f %10.1f%n", mean(timesOn), percentile(timesOn, 0.99),
            indexedBytes / 1e6);
        System.out.printf(Locale.ROOT, "none (scan)      %8.2f %8.2f %10.1f%n", mean(timesOff), percentile(timesOff, 0.99),
            plainBytes / 1e6);
        System.out.printf(Locale.ROOT, "newly hot (shard scan) %8.2f %8.2f%n", mean(timesListed),
            percentile(timesListed, 0.99));
        System.out.printf(Locale.ROOT, "re-indexed in the background (%.1f s) %8.2f %8.2f%n", reindexSeconds,
            mean(timesReindexed), percentile(timesReindexed, 0.99));
        System.out.printf(Locale.ROOT, "latency %.1f%% lower with the index; index %.1f%% larger%n",
            100 * (1 - mean(timesOn) / mean(timesOff)), 100.0 * (indexedBytes - plainBytes) / plainBytes);
        figures(out, report, String.join(" ", args), String.format(Locale.ROOT, "%,d rows (Zipf θ = 1 over 10,000"
            + " tenants, about ten attributes each from 1,500 Zipf-popular keys) in %d shards; %,d queries on one of"
            + " the %d most frequent keys (%s) for one of the 20 largest tenants, COUNT(*) and a top-20 page in turn,"
            + " one client, both shard sets back to back", rowCount, SHARDS, queries, HOT_KEYS, hot), timesOn,
            timesOff, timesListed, timesReindexed, reindexSeconds, indexedBytes, plainBytes);
      }
    }
  }

  /** ESDB's fig. 18: both latency distributions as CSV, a PNG of their percentiles, and the report's section. */
  private static void figures(Path out, Path report, String args, String setup, List<Double> timesOn,
      List<Double> timesOff, List<Double> timesListed, List<Double> timesReindexed, double reindexSeconds,
      long indexedBytes, long plainBytes) throws java.io.IOException {
    ExperimentOutput output = new ExperimentOutput(out);
    double[] on = timesOn.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] off = timesOff.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] newly = timesListed.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] reindexed = timesReindexed.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    List<List<Object>> rows = new ArrayList<>();
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    for (double p : new double[] {0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99}) {
      rows.add(List.of(p, percentile(on, p), percentile(off, p), percentile(newly, p), percentile(reindexed, p)));
      lines.computeIfAbsent("hot keys indexed", k -> new ArrayList<>()).add(new double[] {100 * p, percentile(on, p)});
      lines.computeIfAbsent("no attribute index (scan)", k -> new ArrayList<>())
          .add(new double[] {100 * p, percentile(off, p)});
      lines.computeIfAbsent("newly hot: rows written before, scanned by the shards", k -> new ArrayList<>())
          .add(new double[] {100 * p, percentile(newly, p)});
      lines.computeIfAbsent("newly hot, after the background re-indexing", k -> new ArrayList<>())
          .add(new double[] {100 * p, percentile(reindexed, p)});
    }
    Path csv = output.csv("frequency-index", List.of("quantile", "indexed_ms", "scan_ms", "newly_hot_ms",
        "reindexed_ms"), rows);
    Path chart = output.lineChart("frequency-index", "Attribute queries with and without frequency-based indexing"
        + " [ESDB fig. 18]", "percentile", "latency (ms, log)", lines, true);
    String table = String.format(Locale.ROOT, """
        | attribute index | mean ms | p50 ms | p99 ms | index MB |
        |---|---:|---:|---:|---:|
        | the hot keys indexed | %.2f | %.2f | %.2f | %.1f |
        | none (scan of the stored attributes) | %.2f | %.2f | %.2f | %.1f |
        | newly hot: the rows written before it, scanned by the shards | %.2f | %.2f | %.2f | %.1f |
        | newly hot, after the shard server indexed those rows again in the background (%.1f s) | %.2f | %.2f | %.2f | – |

        Mean latency %.1f%% lower with the index, for an index %.1f%% larger.
        """, mean(timesOn), percentile(on, 0.5), percentile(on, 0.99), indexedBytes / 1e6, mean(timesOff),
        percentile(off, 0.5), percentile(off, 0.99), plainBytes / 1e6, mean(timesListed), percentile(newly, 0.5),
        percentile(newly, 0.99), plainBytes / 1e6, reindexSeconds, mean(timesReindexed), percentile(reindexed, 0.5),
        percentile(reindexed, 0.99), 100 * (1 - mean(timesOn) / mean(timesOff)),
        100.0 * (indexedBytes - plainBytes) / plainBytes);
    PaperReport.section(report, "frequency-index", "Frequency-based indexing on and off [ESDB fig. 18]",
        ("java -cp benchmarks/target/benchmarks.jar " + FrequencyIndexBenchmark.class.getName() + " " + args).strip(),
        "In process: the query service over a local shard server (gRPC on loopback). " + setup, csv, table,
        List.of(chart));
  }

  private static ShardSettings settings(Set<String> hot) {
    return new ShardSettings(Durability.INTERVAL, 200, 1_000, 600_000, 256, hot);
  }

  /** A tenant among the top 20 and one of the hot keys: COUNT(*), or a page of rows, alternately. */
  static String query(Random random, long[] tenants, List<String> hotKeys, int i) {
    String filter = "tenant_id = " + tenants[random.nextInt(tenants.length)] + " AND attr('"
        + hotKeys.get(random.nextInt(hotKeys.size())) + "') = '" + random.nextInt(50) + "'";
    return i % 2 == 0 ? "SELECT COUNT(*) FROM transaction_logs WHERE " + filter
        : "SELECT row_id, created_time FROM transaction_logs WHERE " + filter
            + " ORDER BY created_time DESC, row_id LIMIT 20";
  }

  private static QueryResult timed(QueryService service, String sql, List<Double> times) {
    long started = System.nanoTime();
    QueryResult result = service.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
    times.add((System.nanoTime() - started) / 1e6);
    return result;
  }
}
