package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.workload.ChangeProducer;
import io.evenkeel.workload.RowGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Small tenants' write-to-searchable delay while one tenant surges to 100 times the mean tenant's rate, with the
 * sink's isolated lanes and without, under each routing policy, on {@code bin/evenkeel local} with capped shards (so
 * that the surging tenant's shard is the bottleneck, as one shard of a loaded cluster is). Every run replays the small
 * tenants alone, then with the surge, then alone again; the small tenants' new rows are probed by SQL
 * ({@link SearchableWatch}) and their delays are compared before and during the surge within the run.
 */
@Command(name = "surge-experiment", mixinStandardHelpOptions = true,
    description = "Small tenants' delay while one tenant surges, with and without the sink's lanes.")
public final class SurgeExperiment implements Callable<Integer> {
  private static final long SURGING_TENANT = 1_000_000;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout whose bin/evenkeel runs.")
  Path repo;

  @Option(names = "--work", description = "The stacks' data go here (default: a new temporary directory, deleted at"
      + " the end).")
  Path work;

  @Option(names = "--out", defaultValue = "benchmarks/results", description = "CSV, PNG and Markdown go here.")
  Path out;

  @Option(names = "--scale", defaultValue = "full", description = "full (4 stacks, about 12 minutes), steady (one"
      + " stack: dynamic with lanes, one tenant writing half of all rows for 4 minutes, for the shards' spread in a"
      + " steady state; about 7 minutes) or smoke (one stack: hashing, where the lanes alone isolate the surge, with"
      + " lanes; about 2 minutes).")
  String scale;

  /**
   * One run's shape.
   *
   * @param shardCapacity changes/s each of the 4 shards indexes (one shard server)
   * @param smallTenants tenants writing {@code smallRate} rows/s together, evenly
   * @param surgeMultiple the surging tenant's rate over the mean small tenant's
   */
  record Setup(int shards, double shardCapacity, int smallTenants, double smallRate, double surgeMultiple,
      double warmupSeconds, double beforeSeconds, double surgeSeconds, double afterSeconds, long monitorWindowMs,
      int probeEvery, List<String> policies) {
    static Setup full() {
      return new Setup(4, 600, 50, 500, 100, 45, 20, 60, 15, 10_000, 5, List.of("hashing", "dynamic"));
    }

    /** One tenant writes as much as the 50 others together (half of all writes) long enough to reach a steady state. */
    static Setup steady() {
      return new Setup(4, 600, 50, 500, 50, 45, 20, 240, 15, 10_000, 5, List.of("dynamic"));
    }

    static Setup smoke() {
      return new Setup(4, 600, 50, 500, 100, 30, 10, 15, 5, 2_000, 5, List.of("hashing"));
    }

    double surgeRate() {
      return surgeMultiple * smallRate / smallTenants;
    }
  }

  /**
   * One run: the small tenants' probes before the surge, during it, and during it after two monitor windows; when
   * the first rule naming the surging tenant took effect (seconds after the surge began, NaN for none) and its L;
   * and the largest shard's writes over the mean shard's in the surge's second half.
   */
  record Run(String policy, boolean lanes, ProbeDelays before, ProbeDelays surge, ProbeDelays surgeSeen,
      List<double[]> bySecond, double ruleInEffectSeconds, int offsetSize, double shardLoadMaxOverMean) {
    String name() {
      return policy + (lanes ? ", lanes" : ", one lane");
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new SurgeExperiment()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Setup setup = switch (scale) {
      case "full" -> Setup.full();
      case "steady" -> Setup.steady();
      case "smoke" -> Setup.smoke();
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "--scale is full, steady or smoke");
    };
    boolean temporary = work == null;
    work = temporary ? Files.createTempDirectory("evenkeel-surge") : Files.createDirectories(work);
    List<Run> runs = new ArrayList<>();
    try {
      for (String policy : setup.policies()) {
        for (boolean lanes : scale.equals("full") ? List.of(true, false) : List.of(true)) {
          runs.add(run(setup, policy, lanes));
        }
      }
    } finally {
      if (temporary) {
        IOUtils.rm(work);
      }
    }
    write(setup, runs);
    return 0;
  }

  private Run run(Setup setup, String policy, boolean lanes) throws Exception {
    System.out.printf(Locale.ROOT, "%s, lanes %s: starting a stack%n", policy, lanes);
    Path data = work.resolve(policy + (lanes ? "-lanes" : "-one-lane"));
    List<String> args = List.of("--shard-servers", "1", "--shards", Integer.toString(setup.shards()), "--replicas",
        "0", "--policy", policy, "--shard-write-capacity", String.format(Locale.ROOT, "%.0f", setup.shardCapacity()),
        "--job-option", "sink-lanes=" + lanes, "--job-option", "monitor-window-ms=" + setup.monitorWindowMs());
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, data, args);
        ChangeProducer producer = new ChangeProducer(stack.bootstrapServers(), "transaction-logs", "surge", 64 << 10)) {
      RowGenerator rows = new RowGenerator(25, setup.smallTenants(), 0);
      SearchableWatch watch = new SearchableWatch(stack, setup.probeEvery());
      long start;
      long surgeFrom;
      long surgeTo;
      long surgeWallMillis = 0;
      List<EvenkeelPeer.ShardDocs> halfway = null;
      List<EvenkeelPeer.ShardDocs> atEnd = null;
      try (watch) {
        start = System.nanoTime();
        long warm = start + seconds(setup.warmupSeconds());
        surgeFrom = warm + seconds(setup.beforeSeconds());
        surgeTo = surgeFrom + seconds(setup.surgeSeconds());
        long end = surgeTo + seconds(setup.afterSeconds());
        long small = 0;
        long surging = 0;
        long half = surgeFrom + (surgeTo - surgeFrom) / 2;
        for (long now = start; now < end; now = System.nanoTime()) {
          if (surgeWallMillis == 0 && now >= surgeFrom) {
            surgeWallMillis = System.currentTimeMillis();
          }
          if (halfway == null && now >= half) {
            halfway = stack.shardDocs();
          }
          if (atEnd == null && now >= surgeTo) {
            atEnd = stack.shardDocs();
          }
          long dueSmall = (long) (setup.smallRate() * (now - start) / 1e9);
          long dueSurge = now < surgeFrom ? 0 : (long) (setup.surgeRate() * (Math.min(now, surgeTo) - surgeFrom) / 1e9);
          for (; small < dueSmall; small++) {
            TransactionLogChange row = now(rows.next(), -1);
            producer.send(row);
            watch.sent(row, System.nanoTime());
          }
          for (; surging < dueSurge; surging++) {
            producer.send(now(rows.next(), SURGING_TENANT));
          }
          Thread.sleep(5);
        }
        producer.flush();
        watch.awaitProbes(seconds(60));
      }
      List<SearchableWatch.Probe> probes = watch.probes();
      long seen = surgeFrom + TimeUnit.MILLISECONDS.toNanos(2 * setup.monitorWindowMs() + 1_000);
      Rule rule = stack.committedRuleList().rules().stream().filter(r -> r.names(SURGING_TENANT)).findFirst()
          .orElse(null);
      Run run = new Run(policy, lanes, ProbeDelays.of(probes, start + seconds(setup.warmupSeconds()), surgeFrom),
          ProbeDelays.of(probes, surgeFrom, surgeTo), ProbeDelays.of(probes, seen, surgeTo),
          bySecond(probes, start, surgeFrom),
          rule == null ? Double.NaN : (rule.effectiveTime() - surgeWallMillis) / 1e3,
          rule == null ? 1 : rule.offsetSize(), maxOverMean(halfway, atEnd));
      System.out.printf(Locale.ROOT, "%s: small tenants' delay p50 / p99 before the surge %,.0f / %,.0f ms, during"
          + " it %,.0f / %,.0f ms, during it after two monitor windows %,.0f / %,.0f ms%n", run.name(),
          run.before().p50Millis(), run.before().p99Millis(), run.surge().p50Millis(), run.surge().p99Millis(),
          run.surgeSeen().p50Millis(), run.surgeSeen().p99Millis());
      return run;
    }
  }

  /** The largest shard's new documents between two looks over the mean shard's. */
  private static double maxOverMean(List<EvenkeelPeer.ShardDocs> from, List<EvenkeelPeer.ShardDocs> to) {
    Map<Integer, Long> before = new TreeMap<>();
    from.forEach(docs -> before.put(docs.shard(), docs.docs()));
    double[] added = to.stream().mapToDouble(docs -> docs.docs() - before.getOrDefault(docs.shard(), 0L)).toArray();
    double mean = Arrays.stream(added).average().orElse(Double.NaN);
    return Arrays.stream(added).max().orElse(Double.NaN) / mean;
  }

  /** The row sent now: created and modified now, of {@code tenant} unless it is -1. */
  private static TransactionLogChange now(TransactionLogChange row, long tenant) {
    long now = System.currentTimeMillis();
    TransactionLogChange.Builder builder = TransactionLogChange.newBuilder(row).setCreatedTime(now)
        .setModifiedTime(now);
    if (tenant >= 0) {
      builder.setTenantId(tenant).setSellerNick("seller-" + tenant);
    }
    return builder.build();
  }

  /** The p99 delay of the probes sent in each second, against seconds since the surge began. */
  private static List<double[]> bySecond(List<SearchableWatch.Probe> probes, long start, long surgeFrom) {
    Map<Long, List<Double>> seconds = new TreeMap<>();
    for (SearchableWatch.Probe probe : probes) {
      seconds.computeIfAbsent((probe.sentNanos() - start) / 1_000_000_000L, s -> new ArrayList<>())
          .add(probe.delayNanos() / 1e6);
    }
    List<double[]> points = new ArrayList<>();
    seconds.forEach((second, delays) -> points.add(new double[] {second - (surgeFrom - start) / 1e9,
        ReplayPoint.quantile(delays.stream().mapToDouble(Double::doubleValue).sorted().toArray(), 0.99)}));
    return points;
  }

  private void write(Setup setup, List<Run> runs) throws Exception {
    ExperimentOutput output = new ExperimentOutput(out);
    String stamp = (scale.equals("full") ? "" : scale + "-")
        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    List<List<Object>> rows = new ArrayList<>();
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    StringBuilder table = new StringBuilder("| policy | lanes | small tenants' delay before: p50 / p99 (ms) | during"
        + " the surge | during it, after two monitor windows | p99 during / before | surging tenant's rule: L, in"
        + " effect after | largest / mean shard, 2nd half of the surge |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (Run run : runs) {
      rows.add(List.of(run.policy(), run.lanes(), run.before().probes(), run.before().p50Millis(),
          run.before().p99Millis(), run.surge().probes(), run.surge().unseen(), run.surge().p50Millis(),
          run.surge().p99Millis(), run.surgeSeen().p50Millis(), run.surgeSeen().p99Millis(), run.offsetSize(),
          run.ruleInEffectSeconds(), run.shardLoadMaxOverMean()));
      series.put(run.name(), run.bySecond());
      table.append(String.format(Locale.ROOT, "| %s | %s | %,.0f / %,.0f | %,.0f / %,.0f | %,.0f / %,.0f | %.2f | %s |"
          + " %.2f |%n", run.policy(), run.lanes() ? "on" : "off", run.before().p50Millis(), run.before().p99Millis(),
          run.surge().p50Millis(), run.surge().p99Millis(), run.surgeSeen().p50Millis(), run.surgeSeen().p99Millis(),
          run.surge().p99Millis() / run.before().p99Millis(), Double.isNaN(run.ruleInEffectSeconds()) ? "no rule"
              : String.format(Locale.ROOT, "L = %d, %.0f s", run.offsetSize(), run.ruleInEffectSeconds()),
          run.shardLoadMaxOverMean()));
    }
    Path csv = output.csv("surge-" + stamp, List.of("policy", "lanes", "probes_before", "delay_p50_before_ms",
        "delay_p99_before_ms", "probes_surge", "unseen_surge", "delay_p50_surge_ms", "delay_p99_surge_ms",
        "delay_p50_surge_seen_ms", "delay_p99_surge_seen_ms", "surging_offset_size", "rule_in_effect_s",
        "shard_load_max_over_mean"), rows);
    Path png = output.lineChart("surge-" + stamp, "Small tenants' write-to-searchable delay p99 while one tenant"
        + " surges", "seconds since the surge began (it lasts " + (int) setup.surgeSeconds() + " s)",
        "delay p99 (ms, log)", series, true);
    String markdown = String.format(Locale.ROOT, """
        # Small tenants during one tenant's surge, with and without the sink's lanes

        `java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.experiments.SurgeExperiment --scale %s`
        on %s. Each run: `bin/evenkeel local` with 1 shard server, %d shards of %,.0f changes/s, no replicas, monitor
        windows of %,d ms; %d small tenants write %,.0f rows/s together (%.0f s unmeasured, then %.0f s measured),
        then one more tenant writes %,.0f rows/s (%.0f times the mean small tenant) for %.0f s, then %.0f s without
        it. Every %dth small-tenant row is a probe, found by SQL. Data: `%s`.

        %s
        ![%s](%s)
        """, scale, ExperimentOutput.machine(), setup.shards(), setup.shardCapacity(), setup.monitorWindowMs(),
        setup.smallTenants(), setup.smallRate(), setup.warmupSeconds(), setup.beforeSeconds(), setup.surgeRate(),
        setup.surgeMultiple(), setup.surgeSeconds(), setup.afterSeconds(), setup.probeEvery(), csv.getFileName(),
        table, png.getFileName(), png.getFileName());
    Path md = out.resolve("surge-" + stamp + ".md");
    Files.writeString(md, markdown);
    System.out.print(table);
    System.out.println("results: " + md);
  }

  private static long seconds(double seconds) {
    return (long) (seconds * 1e9);
  }
}
