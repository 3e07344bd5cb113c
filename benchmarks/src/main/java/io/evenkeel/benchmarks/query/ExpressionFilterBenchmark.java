package io.evenkeel.benchmarks.query;

import static io.evenkeel.benchmarks.query.BenchmarkFigures.intArg;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.percentile;
import static io.evenkeel.benchmarks.query.BenchmarkFigures.stringArg;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.Access;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.result.QueryException;
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
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.lucene.util.IOUtils;

/**
 * What a filter no index answers costs a tenant query: the same queries without it, with it tested by the shards on
 * their rows (the product), and with it left to the service, which then reads every candidate row of the tenant (the
 * way before). Zipf(1) tenants over in-process shards; for the hottest tenant (spread over 4 shards) and small ones,
 * a page ({@code ORDER BY created_time DESC LIMIT 20}, with {@code price * quantity > 20000}), a count (with
 * {@code SECOND(FROM_UNIXTIME(created_time / 1000)) < 30}) and sums by day ({@code GROUP BY DATE(FROM_UNIXTIME(
 * created_time / 1000))} of {@code SUM(price * quantity)}, against sums by status of the price) and a page ordered by
 * {@code price * quantity} (against one ordered by the price); each query's forms
 * run back to back, one client (the service's form, which reads all of a tenant's rows, only for the first {@code
 * --baseline-queries}).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.ExpressionFilterBenchmark
 * [--rows N] [--shards N] [--queries N] [--baseline-queries N] [--only page|count|grouped|sorted] [--out DIR]}: prints p50 and p99 of each form and the
 * ratios to the query without the filter, and writes them to {@code expression-filters-<time>.md} in {@code --out}.
 */
public final class ExpressionFilterBenchmark {
  private static final int TENANTS = 10_000;
  private static final int SMALL_TENANTS = 20;
  /** A tenant query (its tenant a {@code %d}) in its plain form and with an expression no index answers. */
  private record Case(String kind, String plain, String withExpression) {}

  private static final List<Case> CASES = List.of(
      new Case("page", "SELECT row_id, created_time, price FROM transaction_logs WHERE tenant_id = %d "
          + "ORDER BY created_time DESC LIMIT 20", "SELECT row_id, created_time, price FROM transaction_logs "
          + "WHERE tenant_id = %d AND price * quantity > 20000 ORDER BY created_time DESC LIMIT 20"),
      new Case("count", "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = %d", "SELECT COUNT(*) FROM "
          + "transaction_logs WHERE tenant_id = %d AND SECOND(FROM_UNIXTIME(created_time / 1000)) < 30"),
      new Case("grouped", "SELECT status, COUNT(*), SUM(price) FROM transaction_logs WHERE tenant_id = %d "
          + "GROUP BY status", "SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*), "
          + "SUM(price * quantity) FROM transaction_logs WHERE tenant_id = %d GROUP BY day"),
      new Case("sorted", "SELECT row_id, created_time, price FROM transaction_logs WHERE tenant_id = %d "
          + "ORDER BY price DESC LIMIT 20", "SELECT row_id, created_time, price FROM transaction_logs "
          + "WHERE tenant_id = %d ORDER BY price * quantity DESC LIMIT 20"));

  private ExpressionFilterBenchmark() {}

  /** One form's latencies; refusals (a 400 for too many candidate rows) counted apart. */
  private record Form(String name, List<Double> times, int[] refused) {
    Form(String name) {
      this(name, new ArrayList<>(), new int[1]);
    }
  }

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = intArg(args, "--rows", 1_000_000);
    int numShards = intArg(args, "--shards", 4);
    int queries = intArg(args, "--queries", 300);
    int baselineQueries = intArg(args, "--baseline-queries", 30);
    String only = stringArg(args, "--only", "");
    Path out = Path.of(stringArg(args, "--out", "benchmarks/results"));
    Path work = Files.createTempDirectory("evenkeel-expression-bench");
    RowGenerator generator = new RowGenerator(42, TENANTS, 1.0);
    long hot = generator.tenants().tenantAtRank(1);
    long[] small = new long[SMALL_TENANTS];
    for (int i = 0; i < SMALL_TENANTS; i++) {
      small[i] = generator.tenants().tenantAtRank(200 + i);
    }
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(numShards, List.of(Rule.grow(0, 4, hot))));
    StringBuilder report = new StringBuilder();
    try (LocalShards shards = new LocalShards(work.resolve("server"), numShards,
        new ShardSettings(Durability.INTERVAL, 200, 1_000, 600_000, 256))) {
      long started = System.nanoTime();
      Iterable<TransactionLogChange> generated = () -> Stream.generate(generator::next).limit(rows).iterator();
      shards.load(generated, policy);
      shards.waitForMerges();
      System.out.printf(Locale.ROOT, "loaded %,d rows into %d shards in %.1f s%n", rows, numShards,
          (System.nanoTime() - started) / 1e9);
      ShardPlacement placement = shards.placement();
      try (QueryService product = service(placement, policy, true);
           QueryService before = service(placement, policy, false)) {
        report.append(String.format(Locale.ROOT, "# Expressions no index answers in tenant queries%n%n`java -cp "
            + "benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.ExpressionFilterBenchmark %s`: %,d rows "
            + "(Zipf θ = 1 over %,d tenants) in %d in-process shards, the hottest tenant on 4 of them; %,d queries a "
            + "line, each in its forms back to back (the service's form for the first %d), one client.%n%n",
            String.join(" ", args), rows, TENANTS, numShards, queries, baselineQueries));
        for (Case query : CASES) {
          report.append(String.format(Locale.ROOT, "- %s: `%s` against `%s`%n", query.kind(),
              String.format(query.withExpression(), hot), String.format(query.plain(), hot)));
        }
        report.append(String.format(Locale.ROOT, "%n| tenants | query | without the expression p50 / p99 ms "
            + "| expression on the shards | expression in the service | p50 ratio, shards / without "
            + "| p50 ratio, service / without |%n|---|---|---:|---:|---:|---:|---:|%n"));
        for (Case query : CASES) {
          if (!only.isEmpty() && !only.equals(query.kind())) {
            continue;
          }
          report.append(measure(product, before, query, new long[] {hot}, queries, baselineQueries, "hottest"));
          report.append(measure(product, before, query, small, queries, baselineQueries, "small"));
        }
      }
    } finally {
      IOUtils.rm(work);
    }
    Files.createDirectories(out);
    Path file = out.resolve("expression-filters-" + LocalDateTime.now().format(
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".md");
    Files.writeString(file, report);
    System.out.println("\nwrote " + file);
  }

  private static String measure(QueryService product, QueryService before, Case query, long[] tenants, int queries,
      int baselineQueries, String group) {
    Form without = new Form("without the expression");
    Form onShards = new Form("expression on the shards");
    Form inService = new Form("expression in the service");
    for (int i = -20; i < queries; i++) { // 20 of warm-up
      long tenant = tenants[Math.floorMod(i, tenants.length)];
      boolean measured = i >= 0;
      run(product, String.format(query.plain(), tenant), without, measured);
      run(product, String.format(query.withExpression(), tenant), onShards, measured);
      if (i >= -baselineQueries && i < baselineQueries) {
        run(before, String.format(query.withExpression(), tenant), inService, measured);
      }
    }
    String line = String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", group, query.kind(),
        figures(without),
        figures(onShards), figures(inService), ratio(onShards, without), ratio(inService, without));
    System.out.print(line);
    return line;
  }

  private static void run(QueryService service, String sql, Form form, boolean measured) {
    long started = System.nanoTime();
    try {
      service.execute(sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL);
    } catch (QueryException e) {
      if (e.status() != 400) {
        throw e;
      }
      if (measured) {
        form.refused()[0]++;
      }
      return;
    }
    if (measured) {
      form.times().add((System.nanoTime() - started) / 1e6);
    }
  }

  private static String figures(Form form) {
    if (form.times().isEmpty()) {
      return form.refused()[0] == 0 ? "—" : "refused (400) " + form.refused()[0] + " times";
    }
    return String.format(Locale.ROOT, "%.2f / %.2f%s", percentile(form.times(), 0.5), percentile(form.times(), 0.99),
        form.refused()[0] == 0 ? "" : " (" + form.refused()[0] + " refused)");
  }

  private static String ratio(Form form, Form without) {
    return form.times().isEmpty() ? "—" : String.format(Locale.ROOT, "%.2f×",
        percentile(form.times(), 0.5) / percentile(without.times(), 0.5));
  }

  private static QueryService service(ShardPlacement placement, RoutingPolicy policy, boolean conditionsOnShards) {
    return QueryService.builder().placement(placement).routingPolicy(() -> policy)
        .optimizer(OptimizerSettings.defaults().withConditionsOnShards(conditionsOnShards))
        .deadline(Duration.ofSeconds(30)).build();
  }
}
