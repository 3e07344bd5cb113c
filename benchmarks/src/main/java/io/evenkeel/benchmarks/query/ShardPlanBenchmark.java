package io.evenkeel.benchmarks.query;

import static io.evenkeel.benchmarks.query.BenchmarkFigures.intArg;

import io.evenkeel.query.optimize.Optimizer;
import io.evenkeel.query.optimize.OptimizerRules;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.optimize.QueryPlan;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.StatementParser;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.search.ShardSearch;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.workload.RowGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.IOUtils;

/**
 * The shards' side of the optimizer benchmark, without the service and gRPC: the queries of {@link
 * QueryOptimizerBenchmark} planned three ways and run with {@link ShardSearch} on each shard of the tenant, one after
 * the other: the optimized plan ranking every candidate, the optimized plan in composite-index order (as the service
 * sends it), and the plain plan. Prints the search time per query summed over the shards, and the time to parse and
 * plan.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.query.ShardPlanBenchmark [--rows N]
 * [--shards N] [--queries N] [--window PERCENT]}
 */
public final class ShardPlanBenchmark {
  private static final String SELECT = "row_id, created_time, status, price";

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = intArg(args, "--rows", 1_000_000);
    int numShards = intArg(args, "--shards", 8);
    int queries = intArg(args, "--queries", 3_000);
    int window = intArg(args, "--window", 1);
    Path work = Files.createTempDirectory("evenkeel-shard-plans");
    RowGenerator generator = new RowGenerator(42, 10_000, 1.0);
    long[] top = IntStream.rangeClosed(1, 3).mapToLong(rank -> generator.tenants().tenantAtRank(rank)).toArray();
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(numShards, List.of(Rule.grow(0, 4, top))));
    try (LocalShards shards = new LocalShards(work.resolve("server"), numShards,
        new ShardSettings(Durability.INTERVAL, 200, 1_000, 600_000, 256))) {
      shards.load(() -> Stream.generate(generator::next).limit(rows).iterator(), policy);
      shards.waitForMerges();
      System.out.printf(Locale.ROOT, "%,d rows in %d shards; segments per shard %s; window %d%%%n", rows, numShards,
          shards.segmentCounts(), window);
      Optimizer optimized = optimizer(OptimizerRules.DEFAULT);
      Optimizer plain = optimizer(OptimizerRules.PLAIN);
      long first = RowGenerator.startTime();
      long last = RowGenerator.createdTime(rows - 1);
      for (int round = 1; round <= 3; round++) { // the first rounds warm the JIT up
        Random random = new Random(7);
        long[] nanos = new long[5]; // parse, plan both, ranked, in composite order, plain
        for (int i = 0; i < queries; i++) {
          long tenant = top[i % top.length];
          String sql = QueryOptimizerBenchmark.query(random, SELECT, window, tenant, i, first, last);
          long started = System.nanoTime();
          SelectStatement statement = StatementParser.parse(sql, List.of());
          long parsed = System.nanoTime();
          QueryPlan on = optimized.plan(statement);
          QueryPlan off = plain.plan(statement);
          nanos[0] += parsed - started;
          nanos[1] += System.nanoTime() - parsed;
          for (int shard : policy.shardsFor(tenant).shards()) {
            ShardIndex index = shards.index(shard);
            IndexSearcher searcher = index.searchers().acquire();
            try {
              nanos[2] += timed(searcher, request(on).setOrderedByComposite(false).build());
              nanos[3] += timed(searcher, request(on).build());
              nanos[4] += timed(searcher, request(off).build());
            } finally {
              index.searchers().release(searcher);
            }
          }
        }
        System.out.printf(Locale.ROOT, "round %d, per query: optimized %.0f µs ranking every candidate, %.0f µs as "
            + "sent (composite order where it applies); plain %.0f µs; plain / as sent %.2fx; parse %.0f µs, plan "
            + "(both) %.0f µs%n", round, nanos[2] / 1e3 / queries, nanos[3] / 1e3 / queries, nanos[4] / 1e3 / queries,
            (double) nanos[4] / nanos[3], nanos[0] / 1e3 / queries, nanos[1] / 1e3 / queries);
      }
    } finally {
      IOUtils.rm(work);
    }
  }

  private static Optimizer optimizer(List<io.evenkeel.query.optimize.AccessRule> rules) {
    return new Optimizer(OptimizerSettings.defaults().withScanColumns(QueryOptimizerBenchmark.SCAN_LIST)
        .withRules(rules));
  }

  /** The two-phase query the service would send for this plan. */
  private static Query.Builder request(QueryPlan plan) {
    return Query.newBuilder().setFilter(plan.filter()).addAllSort(plan.sort()).setLimit(plan.hitsPerShard())
        .setOrderedByComposite(plan.orderedByComposite()).addAllColumns(plan.hitColumns());
  }

  private static long timed(IndexSearcher searcher, Query query) throws Exception {
    long started = System.nanoTime();
    ShardSearch.run(searcher, query);
    return System.nanoTime() - started;
  }
}
