package io.evenkeel.benchmarks.demo;

import io.evenkeel.benchmarks.trace.WriteTrace;
import io.evenkeel.router.planner.BalancePlanner;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Prints where a skewed stream of writes lands under hashing, double hashing and dynamic secondary hashing.
 *
 * <p>Usage: {@code RouterDemo [--writes N] [--tenants N] [--theta X] [--shards N] [--double-l L] [--windows N]
 * [--seed N] [--alpha X]}
 */
public final class RouterDemo {
  private RouterDemo() {}

  public static void main(String[] args) {
    int writes = 1_000_000;
    int tenants = 10_000;
    double theta = 1.0;
    int shards = 12;
    int doubleL = 8;
    int windows = 10;
    long seed = 1;
    Double alpha = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        System.out.println("usage: RouterDemo [--writes N] [--tenants N] [--theta X] [--shards N] [--double-l L]"
            + " [--windows N] [--seed N] [--alpha X]");
        return;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--writes" -> writes = Integer.parseInt(value);
        case "--tenants" -> tenants = Integer.parseInt(value);
        case "--theta" -> theta = Double.parseDouble(value);
        case "--shards" -> shards = Integer.parseInt(value);
        case "--double-l" -> doubleL = Integer.parseInt(value);
        case "--windows" -> windows = Integer.parseInt(value);
        case "--seed" -> seed = Long.parseLong(value);
        case "--alpha" -> alpha = Double.parseDouble(value);
        default -> throw new IllegalArgumentException("unknown flag " + flag + " (try --help)");
      }
    }
    WriteTrace trace = WriteTrace.zipf(writes, tenants, theta, seed);
    BalancePlanner.Builder planner = BalancePlanner.builder(shards);
    if (alpha != null) {
      planner.maxTenantShareOfShard(alpha);
    }
    BalancePlanner built = planner.build();
    List<RouterComparison.Outcome> outcomes = new RouterComparison(shards, doubleL, windows, built).compare(trace, 10);
    print(System.out, trace, theta, built, windows, outcomes);
  }

  static void print(PrintStream out, WriteTrace trace, double theta, BalancePlanner planner, int windows,
      List<RouterComparison.Outcome> outcomes) {
    int shards = outcomes.get(0).writesPerShard().length;
    out.printf(Locale.ROOT, "Evenkeel router demo: %,d writes of %,d tenants, Zipf theta=%.2f, %d shards;"
        + " the dynamic policy plans after each of %d windows (hot above %.2f%% of writes).%n", trace.size(),
        trace.popularity().tenants(), theta, shards, windows, 100 * planner.hotShareThreshold());
    out.print("Hottest tenants (share of writes):");
    for (int rank = 1; rank <= 5; rank++) {
      out.printf(Locale.ROOT, " #%d tenant %d %.1f%%", rank, trace.popularity().tenantAtRank(rank),
          100 * trace.popularity().expectedShare(rank));
    }
    out.println();
    out.println();
    out.printf("%-22s %12s %12s %14s %14s %12s %12s %6s%n", "policy", "max/mean", "stddev/mean", "max/mean",
        "stddev/mean", "shards per", "shards per", "rules");
    out.printf("%-22s %12s %12s %14s %14s %12s %12s %6s%n", "", "(all)", "(all)", "(last window)", "(last window)",
        "top-10 query", "other query", "");
    for (RouterComparison.Outcome o : outcomes) {
      out.printf(Locale.ROOT, "%-22s %12.2f %12.3f %14.2f %14.3f %12.2f %12.2f %6d%n", o.policy(),
          o.maxOverMean(false), o.coefficientOfVariation(false), o.maxOverMean(true), o.coefficientOfVariation(true),
          o.meanFanOutTopTenants(), o.meanFanOutSmallTenants(), o.rules());
    }
    out.println();
    out.println("Share of the last window's writes per shard (%):");
    out.printf("%-6s", "shard");
    for (RouterComparison.Outcome o : outcomes) {
      out.printf(" %22s", o.policy());
    }
    out.println();
    for (int shard = 0; shard < shards; shard++) {
      out.printf("%-6d", shard);
      for (RouterComparison.Outcome o : outcomes) {
        long[] last = o.lastWindowWritesPerShard();
        double share = 100.0 * last[shard] / java.util.Arrays.stream(last).sum();
        out.printf(Locale.ROOT, " %8.1f %-13s", share, "#".repeat((int) Math.round(share / 2)));
      }
      out.println();
    }
  }
}
