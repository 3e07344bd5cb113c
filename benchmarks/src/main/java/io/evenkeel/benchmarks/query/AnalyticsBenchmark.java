package io.evenkeel.benchmarks.query;

import static io.evenkeel.benchmarks.query.BenchmarkFigures.intArg;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.percentile;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.stringArg;

import io.evenkeel.cluster.memory.ByteSize;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.Access;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.search.SegmentAggregates;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.workload.RowGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.lucene.util.IOUtils;

/**
 * Cross-tenant analytics on the shards, the peer benchmark's three kinds: the top 10 tenants by rows, rows by status
 * and day, and the 20 tenants with the largest sum of prices, each over the newer half of the rows (Zipf(1) over 500
 * tenants in in-process shards, one client). For profiling and for what a change to the shards' aggregation buys;
 * the comparison with OpenSearch is the peer benchmark's. Each query reads every segment each time unless {@code
 * --aggregation-cache SIZE} lets the server keep segments' groups ({@link SegmentAggregates}), as it does by default.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.AnalyticsBenchmark [--rows N]
 * [--shards N] [--queries N] [--aggregation-cache SIZE] [--out DIR]}: prints each query's p50 and p99 and writes them
 * to {@code analytics-<time>.md}.
 */
public final class AnalyticsBenchmark {
  private AnalyticsBenchmark() {}

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = intArg(args, "--rows", 600_000);
    int numShards = intArg(args, "--shards", 8);
    int queries = intArg(args, "--queries", 60);
    Path out = Path.of(stringArg(args, "--out", "benchmarks/results"));
    long kept = ByteSize.parse(stringArg(args, "--aggregation-cache", "0"));
    Path work = Files.createTempDirectory("evenkeel-analytics-bench");
    RowGenerator generator = new RowGenerator(42, 500, 1.0);
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(numShards, List.of()));
    StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "# Cross-tenant analytics on the shards%n%n"
        + "`java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.AnalyticsBenchmark %s`: %,d rows "
        + "(Zipf θ = 1 over 500 tenants) in %d in-process shards; each query %d times after 10 untimed, one client; "
        + "every query over the newer half of the rows; %s.%n%n| query | p50 ms | p99 ms |%n|---|---:|---:|%n",
        String.join(" ", args), rows, numShards, queries, kept == 0 ? "every segment read each time"
            : "segments' groups kept in " + ByteSize.format(kept)));
    try (LocalShards shards = new LocalShards(work.resolve("server"), numShards,
        new ShardSettings(Durability.INTERVAL, 200, 1_000, 600_000, 256), new SegmentAggregates(kept))) {
      Iterable<TransactionLogChange> generated = () -> Stream.generate(generator::next).limit(rows).iterator();
      shards.load(generated, policy);
      shards.waitForMerges();
      long newerHalf = RowGenerator.createdTime(rows / 2);
      String where = " FROM transaction_logs WHERE created_time >= " + newerHalf;
      List<String> statements = List.of(
          "SELECT tenant_id, COUNT(*) AS n" + where + " GROUP BY tenant_id ORDER BY n DESC, tenant_id LIMIT 10",
          "SELECT status, DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*)" + where + " GROUP BY status, day",
          "SELECT tenant_id, SUM(price) AS revenue" + where
              + " GROUP BY tenant_id ORDER BY revenue DESC, tenant_id LIMIT 20");
      try (QueryService service = QueryService.builder().placement(shards.placement()).routingPolicy(() -> policy)
          .optimizer(OptimizerSettings.defaults()).deadline(Duration.ofSeconds(30)).build()) {
        for (String sql : statements) {
          List<Double> times = new ArrayList<>();
          for (int i = -10; i < queries; i++) {
            long started = System.nanoTime();
            service.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
            if (i >= 0) {
              times.add((System.nanoTime() - started) / 1e6);
            }
          }
          String line = String.format(Locale.ROOT, "| `%s` | %.2f | %.2f |%n", sql, percentile(times, 0.5),
              percentile(times, 0.99));
          System.out.print(line);
          report.append(line);
        }
      }
    } finally {
      IOUtils.rm(work);
    }
    Files.createDirectories(out);
    Path file = out.resolve("analytics-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + ".md");
    Files.writeString(file, report);
    System.out.println("\nwrote " + file);
  }
}
