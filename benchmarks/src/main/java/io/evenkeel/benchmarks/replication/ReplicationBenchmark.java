package io.evenkeel.benchmarks.replication;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.peer.ProcessCpu;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.shard.StatsRequest;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Physical against logical replication, as a user runs them: {@code bin/evenkeel local --replicas 1 --replication
 * physical|logical} with the same shard servers and shards, alternating between the modes round by round, each run on
 * a fresh stack. A run first loads rows once unmeasured (a fresh JVM spends much of a first load compiling), then
 * measures two writes of as many new rows: a load with {@code bin/evenkeel load --wait} (the user's path, where Kafka,
 * the Flink job and the loader share the machine with the shard servers), and direct writes to the primaries
 * ({@link DirectWrites}: the shard servers are the bottleneck, which is where ESDB measured replication), timed until
 * every copy searches them. For each: throughput and CPU seconds per 1,000 rows; throughout, the replicas' visibility
 * lag sampled every 200 ms (p50, p99); last a failover: {@code kill -9} of shard-server-0 under a third load, timed
 * until every shard has a live primary again and until that load is searchable. Prints the figures, writes Markdown
 * and a PNG to {@code --out}.
 */
@Command(name = "replication-benchmark", mixinStandardHelpOptions = true,
    description = "Physical against logical replication on bin/evenkeel local: write throughput (direct and load), "
        + "CPU, lag, failover.")
public final class ReplicationBenchmark implements Callable<Integer> {
  private static final String DIRECT_ACKED = "direct writes: rows/s acknowledged";
  private static final String DIRECT = "direct writes: rows/s searchable on every copy";
  private static final String LOAD = "load --wait: rows/s";
  private static final String LAG_P50 = "replica lag p50 ms";
  private static final String LAG_P99 = "replica lag p99 ms";

  @Option(names = "--rows", defaultValue = "200000", description = "Rows per load (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--tenants", defaultValue = "500")
  int tenants;

  @Option(names = "--rounds", defaultValue = "2", description = "Runs of each mode, alternating (medians reported).")
  int rounds;

  @Option(names = "--shard-servers", defaultValue = "3")
  int shardServers;

  @Option(names = "--shards", defaultValue = "12")
  int shards;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (bin/evenkeel).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results")
  Path out;

  @Option(names = "--report", defaultValue = "benchmarks/REPORT.md",
      description = "The report whose replication section [ESDB fig. 15] this run rewrites.")
  Path report;

  /** One run of one mode. */
  record Run(String mode, Writes direct, Writes load, double lagP50Ms, double lagP99Ms, double promotionSeconds,
      double failoverLoadSeconds) {}

  /** One measured write of {@code rows}: until acknowledged, until searchable on every copy, CPU spent meanwhile. */
  record Writes(int rows, double ackedSeconds, double searchableSeconds, double shardServerCpuSeconds,
      double machineCpuSeconds) {
    double rowsPerSecond() {
      return rows / searchableSeconds;
    }

    double ackedRowsPerSecond() {
      return rows / ackedSeconds;
    }
  }

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new ReplicationBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Path work = Files.createTempDirectory("evenkeel-replication-");
    Path file = work.resolve("rows.jsonl");
    Path warmupFile = work.resolve("warmup-rows.jsonl");
    Path failoverFile = work.resolve("failover-rows.jsonl");
    PeerRows generated = PeerRows.generate(21, rows, tenants);
    generated.writeJsonLines(warmupFile);
    generated.shifted(10_000_000L).writeJsonLines(file);
    generated.shifted(20_000_000L).writeJsonLines(failoverFile);
    List<TransactionLogChange> directWarmup = generated.shifted(30_000_000L).rows().subList(0, rows / 4);
    List<TransactionLogChange> direct = generated.shifted(40_000_000L).rows();
    List<Run> runs = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      // Alternating first mode per round: a drift of the machine hits both alike.
      List<String> order = round % 2 == 0 ? List.of("physical", "logical") : List.of("logical", "physical");
      for (String mode : order) {
        Run run = run(mode, work.resolve(mode + "-" + round), warmupFile, directWarmup, direct, file, failoverFile);
        runs.add(run);
        System.out.printf(Locale.ROOT, "round %d %-8s: direct writes %,.0f rows/s acknowledged, %,.0f rows/s "
                + "searchable on every copy (shard servers %.1f CPU-s); load %,.0f rows/s (%.1f CPU-s); lag p50 %.0f "
                + "ms p99 %.0f ms; promotion %.1f s, failover load %.1f s%n", round + 1, mode,
            run.direct().ackedRowsPerSecond(), run.direct().rowsPerSecond(), run.direct().shardServerCpuSeconds(),
            run.load().rowsPerSecond(), run.load().shardServerCpuSeconds(), run.lagP50Ms(), run.lagP99Ms(),
            run.promotionSeconds(), run.failoverLoadSeconds());
      }
    }
    report(runs);
    return 0;
  }

  private Run run(String mode, Path dataDir, Path warmupFile, List<TransactionLogChange> directWarmup,
      List<TransactionLogChange> directRows, Path file, Path failoverFile) throws Exception {
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, dataDir, List.of("--shard-servers",
        Integer.toString(shardServers), "--shards", Integer.toString(shards), "--replicas", "1", "--replication",
        mode));
        CuratorFramework zookeeper = ZooKeeperClients.start("127.0.0.1:" + stack.basePort(), null,
            new ExponentialBackoffRetry(200, 5));
        ClusterStateClient cluster = new ClusterStateClient(zookeeper, "/evenkeel/local");
        ClusterClient shardClient = new ClusterClient()) {
      cluster.start();
      await("every replica in sync", Duration.ofMinutes(2), () -> cluster.current().shards().size() == shards
          && cluster.current().shards().values().stream().allMatch(copies -> copies.getInSync().size() == 1));
      stack.loadAndWait(warmupFile);
      List<ProcessHandle> processes = stack.processes();
      LagSampler lag = new LagSampler(cluster, shardClient);
      lag.start();
      Writes load = measure(processes, rows, () -> stack.loadAndWait(file), () -> true);

      DirectWrites writes = new DirectWrites(shardClient, shards);
      writes.write(cluster.current(), directWarmup);
      long copied = 2L * rows + directWarmup.size();
      await("the direct warm-up searchable on every copy", Duration.ofMinutes(5), () -> Arrays.equals(
          writes.searchableDocs(cluster.current()), new long[] {copied, copied}));
      long expected = copied + directRows.size();
      Writes direct = measure(processes, directRows.size(), () -> writes.write(cluster.current(), directRows),
          () -> Arrays.equals(writes.searchableDocs(cluster.current()), new long[] {expected, expected}));
      lag.stop();

      // Failover under a second load: kill -9 of the first server, timed until every shard has a live primary.
      ProcessHandle victim = processes.stream().filter(p -> p.info().commandLine().orElse("")
          .contains("--port " + (stack.basePort() + 10))).findFirst().orElseThrow();
      String victimAddress = "127.0.0.1:" + (stack.basePort() + 10);
      Thread load2 = new Thread(() -> {
        try {
          stack.loadAndWait(failoverFile);
        } catch (IOException | InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      long failoverStarted = System.nanoTime();
      load2.start();
      Thread.sleep(1_000);
      victim.destroyForcibly();
      long killed = System.nanoTime();
      await("every shard has a live primary again", Duration.ofMinutes(2), () -> allPrimariesLiveWithout(
          cluster.current(), victimAddress));
      double promotion = (System.nanoTime() - killed) / 1e9;
      load2.join(TimeUnit.MINUTES.toMillis(5));
      double failoverLoad = (System.nanoTime() - failoverStarted) / 1e9;
      return new Run(mode, direct, load, lag.percentile(0.5), lag.percentile(0.99), promotion, failoverLoad);
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  /** Times {@code write} until it returns and then until {@code searchable} holds, with the CPU spent meanwhile. */
  private static Writes measure(List<ProcessHandle> processes, int rows, Step write, Condition searchable)
      throws Exception {
    Map<String, Duration> before = ProcessCpu.of(processes);
    double machineBefore = ProcessCpu.machineSeconds();
    long started = System.nanoTime();
    write.run();
    double acked = (System.nanoTime() - started) / 1e9;
    await("every row searchable", Duration.ofMinutes(5), searchable);
    double searchableSeconds = (System.nanoTime() - started) / 1e9;
    double machine = ProcessCpu.machineSeconds() - machineBefore;
    double shardServerCpu = ProcessCpu.between(before, ProcessCpu.of(processes)).entrySet().stream()
        .filter(e -> e.getKey().startsWith("shard-server.jar")).mapToDouble(Map.Entry::getValue).sum();
    return new Writes(rows, acked, searchableSeconds, shardServerCpu, machine);
  }

  private static boolean allPrimariesLiveWithout(ClusterState state, String gone) {
    return state.shards().values().stream().allMatch(copies -> !gone.equals(copies.getPrimary())
        && state.live(copies.getPrimary()));
  }

  /** The largest replica lag of all shards, every 200 ms. */
  private static final class LagSampler {
    private final ClusterStateClient cluster;
    private final ClusterClient shards;
    private final List<Long> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    LagSampler(ClusterStateClient cluster, ClusterClient shards) {
      this.cluster = cluster;
      this.shards = shards;
      this.thread = new Thread(this::sample, "lag-sampler");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void sample() {
      while (!stopped) {
        long largest = 0;
        ClusterState state = cluster.current();
        for (ShardCopies copies : state.shards().values()) {
          for (String replica : state.liveReplicas(copies.getShard())) {
            try {
              largest = Math.max(largest, shards.blockingStub(ShardAddress.parse(replica))
                  .withDeadlineAfter(2, TimeUnit.SECONDS)
                  .stats(StatsRequest.newBuilder().setShard(copies.getShard()).build()).getReplicaLagMs());
            } catch (RuntimeException e) {
              // a busy server: no sample from it this time
            }
          }
        }
        synchronized (samples) {
          samples.add(largest);
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.join();
    }

    double percentile(double p) {
      synchronized (samples) {
        if (samples.isEmpty()) {
          return 0;
        }
        List<Long> sorted = samples.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
      }
    }
  }

  private interface Condition {
    boolean holds() throws Exception;
  }

  private static void await(String what, Duration timeout, Condition condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + ": not after " + timeout.toSeconds() + " s");
      }
      Thread.sleep(100);
    }
  }

  private static double median(Stream<Double> values) {
    List<Double> sorted = values.sorted(Comparator.naturalOrder()).toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private void report(List<Run> runs) throws IOException {
    Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
    for (String mode : List.of("physical", "logical")) {
      List<Run> of = runs.stream().filter(r -> r.mode().equals(mode)).toList();
      Map<String, Double> m = new LinkedHashMap<>();
      m.put(DIRECT_ACKED, median(of.stream().map(r -> r.direct().ackedRowsPerSecond())));
      m.put(DIRECT, median(of.stream().map(r -> r.direct().rowsPerSecond())));
      m.put("direct writes: shard-server CPU-s per 1,000 rows",
          median(of.stream().map(r -> r.direct().shardServerCpuSeconds() * 1000 / r.direct().rows())));
      m.put(LOAD, median(of.stream().map(r -> r.load().rowsPerSecond())));
      m.put("load: shard-server CPU-s per 1,000 rows",
          median(of.stream().map(r -> r.load().shardServerCpuSeconds() * 1000 / r.load().rows())));
      m.put("load: machine CPU-s per 1,000 rows",
          median(of.stream().map(r -> r.load().machineCpuSeconds() * 1000 / r.load().rows())));
      m.put(LAG_P50, median(of.stream().map(Run::lagP50Ms)));
      m.put(LAG_P99, median(of.stream().map(Run::lagP99Ms)));
      m.put("promotion after kill -9, s", median(of.stream().map(Run::promotionSeconds)));
      m.put("load with the kill, s", median(of.stream().map(Run::failoverLoadSeconds)));
      medians.put(mode, m);
    }
    double directRatio = medians.get("physical").get(DIRECT) / medians.get("logical").get(DIRECT);
    double loadRatio = medians.get("physical").get(LOAD) / medians.get("logical").get(LOAD);
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "## Physical against logical replication, %s%n%n",
        LocalDateTime.now().withNano(0)));
    String setup = String.format(Locale.ROOT, "`bin/evenkeel local --no-replay --shard-servers %d --shards %d"
        + " --replicas 1 --replication physical|logical`; %d rounds per mode, alternating, each on a fresh stack; medians. Each run: "
        + "%,d rows (%d Zipf(1) tenants) loaded with `bin/evenkeel load --wait`, unmeasured (warm-up); then "
        + "**load**: %,d new rows with `bin/evenkeel load --wait` (Kafka, the Flink job and the loader share the 2 "
        + "cores with the shard servers); %,d rows written straight to the primaries, unmeasured; then **direct "
        + "writes**: %,d rows to the primaries' gRPC `Write` as the job's sink sends them (batches of %d, %d in "
        + "flight per shard; nothing else runs, so the shard servers are the bottleneck), timed until every primary "
        + "and replica searches them. Replica lag sampled every 200 ms through both. Failover: `kill -9` of "
        + "shard-server-0 one second into a third load of %,d rows (ZooKeeper session timeout 10 s).%n%n",
        shardServers, shards, rounds, rows, tenants, rows, rows / 4, rows, DirectWrites.BATCH_ROWS,
        DirectWrites.IN_FLIGHT_PER_SHARD, rows);
    md.append(setup);
    int tables = md.length();
    md.append("| figure | physical | logical | physical / logical |\n|---|---:|---:|---:|\n");
    for (String figure : medians.get("physical").keySet()) {
      double p = medians.get("physical").get(figure);
      double l = medians.get("logical").get(figure);
      md.append(String.format(Locale.ROOT, "| %s | %,.2f | %,.2f | %.2f |%n", figure, p, l, l == 0 ? 0 : p / l));
    }
    md.append(String.format(Locale.ROOT, "%nWrite throughput, physical over logical: **%.2f×** with the shard servers "
        + "as the bottleneck (direct writes; target ≥ 1.3×), %.2f× on the user's load path.%n%n", directRatio,
        loadRatio));
    md.append("| round | mode | direct rows/s (CPU-s) | load rows/s (CPU-s) | lag p50 / p99 ms | promotion s "
        + "| load with kill s |\n|---:|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      md.append(String.format(Locale.ROOT, "| %d | %s | %,.0f (%.1f) | %,.0f (%.1f) | %.0f / %.0f | %.1f | %.1f |%n",
          i / 2 + 1, r.mode(), r.direct().rowsPerSecond(), r.direct().shardServerCpuSeconds(),
          r.load().rowsPerSecond(), r.load().shardServerCpuSeconds(), r.lagP50Ms(), r.lagP99Ms(),
          r.promotionSeconds(), r.failoverLoadSeconds()));
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Files.createDirectories(out);
    Path markdown = out.resolve("replication-" + stamp + ".md");
    Path png = out.resolve("replication-" + stamp + ".png");
    List<List<Object>> byRun = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      byRun.add(List.of(i / 2 + 1, r.mode(), r.direct().rowsPerSecond(), r.direct().ackedRowsPerSecond(),
          r.direct().shardServerCpuSeconds(), r.load().rowsPerSecond(), r.load().shardServerCpuSeconds(),
          r.lagP50Ms(), r.lagP99Ms(), r.promotionSeconds(), r.failoverLoadSeconds()));
    }
    Path csv = new ExperimentOutput(out).csv("replication-" + stamp, List.of("round", "mode", "direct_rows_per_s",
        "direct_acked_rows_per_s", "direct_shard_server_cpu_s", "load_rows_per_s", "load_shard_server_cpu_s",
        "lag_p50_ms", "lag_p99_ms", "promotion_s", "failover_load_s"), byRun);
    chart(png, medians);
    PaperReport.section(report, "replication", "Physical against logical replication [ESDB fig. 15]",
        "java -cp benchmarks/target/benchmarks.jar " + getClass().getName() + " --rows " + rows + " --tenants "
            + tenants + " --rounds " + rounds + " --shard-servers " + shardServers + " --shards " + shards, setup.strip().replaceAll("\\.$", ""), csv, md.substring(tables), List.of(png));
    md.append(String.format("%n![physical against logical](%s)%n", png.getFileName()));
    Files.writeString(markdown, md);
    System.out.println();
    System.out.print(md);
    System.out.println("written: " + markdown + ", " + png);
  }

  private static void chart(Path png, Map<String, Map<String, Double>> medians) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (String mode : medians.keySet()) {
      data.addValue(medians.get(mode).get(DIRECT) / 1000, mode, "direct writes, thousand rows/s");
      data.addValue(medians.get(mode).get(LOAD) / 1000, mode, "load --wait, thousand rows/s");
      data.addValue(medians.get(mode).get("direct writes: shard-server CPU-s per 1,000 rows") * 10, mode,
          "CPU-s per 10k rows");
      data.addValue(medians.get(mode).get(LAG_P99) / 1000, mode, "replica lag p99, s");
    }
    JFreeChart chart = ChartFactory.createBarChart("Physical against logical replication (medians)", null, null,
        data, PlotOrientation.HORIZONTAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.getRenderer().setSeriesPaint(0, new Color(0x2b, 0x6c, 0xb0));
    plot.getRenderer().setSeriesPaint(1, new Color(0xd9, 0x7b, 0x29));
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 420);
  }
}
