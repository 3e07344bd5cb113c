package io.evenkeel.benchmarks.replication;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.peer.ProcessCpu;
import io.evenkeel.router.client.ClusterClient;
import io.evenkeel.router.cluster.ClusterState;
import io.evenkeel.router.cluster.ClusterStateClient;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.ShardCopies;
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
 * physical|logical} with the same shard servers and shards, the same rows loaded with {@code bin/evenkeel load
 * --wait}, alternating between the modes round by round. Each run first loads the rows once unmeasured (a fresh JVM
 * spends much of a first load compiling), then measures a load of as many new rows: throughput, CPU seconds per 1,000 rows (the
 * shard servers, which hold primaries and replicas alike, and the whole machine), the replicas' visibility lag sampled
 * every 200 ms during the load (p50, p99), and a failover: {@code kill -9} of shard-server-0 under a second load,
 * timed until every shard has a live primary again and until that load is searchable. Prints the figures, writes
 * Markdown and a PNG to {@code --out}.
 */
@Command(name = "replication-benchmark", mixinStandardHelpOptions = true,
    description = "Physical against logical replication on bin/evenkeel local: load throughput, CPU, lag, failover.")
public final class ReplicationBenchmark implements Callable<Integer> {
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

  /** One run of one mode. */
  record Run(String mode, double loadSeconds, double shardServerCpuSeconds, double machineCpuSeconds,
      double lagP50Ms, double lagP99Ms, double promotionSeconds, double failoverLoadSeconds) {
    double rowsPerSecond(int rows) {
      return rows / loadSeconds;
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
    List<Run> runs = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      // Alternating first mode per round: a drift of the machine hits both alike.
      List<String> order = round % 2 == 0 ? List.of("physical", "logical") : List.of("logical", "physical");
      for (String mode : order) {
        Run run = run(mode, work.resolve(mode + "-" + round), warmupFile, file, failoverFile);
        runs.add(run);
        System.out.printf(Locale.ROOT, "round %d %-8s: %,.0f rows/s, shard servers %.1f CPU-s, lag p50 %.0f ms "
                + "p99 %.0f ms, promotion %.1f s, failover load %.1f s%n", round + 1, mode, run.rowsPerSecond(rows),
            run.shardServerCpuSeconds(), run.lagP50Ms(), run.lagP99Ms(), run.promotionSeconds(),
            run.failoverLoadSeconds());
      }
    }
    report(runs);
    return 0;
  }

  private Run run(String mode, Path dataDir, Path warmupFile, Path file, Path failoverFile) throws Exception {
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
      Map<String, Duration> before = ProcessCpu.of(processes);
      double machineBefore = ProcessCpu.machineSeconds();
      LagSampler lag = new LagSampler(cluster, shardClient);
      lag.start();
      long started = System.nanoTime();
      stack.loadAndWait(file);
      double seconds = (System.nanoTime() - started) / 1e9;
      lag.stop();
      double machine = ProcessCpu.machineSeconds() - machineBefore;
      double shardServerCpu = ProcessCpu.between(before, ProcessCpu.of(processes)).entrySet().stream()
          .filter(e -> e.getKey().startsWith("shard-server.jar")).mapToDouble(Map.Entry::getValue).sum();

      // Failover under a second load: kill -9 of the first server, timed until every shard has a live primary.
      ProcessHandle victim = processes.stream().filter(p -> p.info().commandLine().orElse("")
          .contains("--port " + (stack.basePort() + 10))).findFirst().orElseThrow();
      String victimAddress = "127.0.0.1:" + (stack.basePort() + 10);
      Thread load = new Thread(() -> {
        try {
          stack.loadAndWait(failoverFile);
        } catch (IOException | InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      long failoverStarted = System.nanoTime();
      load.start();
      Thread.sleep(1_000);
      victim.destroyForcibly();
      long killed = System.nanoTime();
      await("every shard has a live primary again", Duration.ofMinutes(2), () -> allPrimariesLiveWithout(
          cluster.current(), victimAddress));
      double promotion = (System.nanoTime() - killed) / 1e9;
      load.join(TimeUnit.MINUTES.toMillis(5));
      double failoverLoad = (System.nanoTime() - failoverStarted) / 1e9;
      return new Run(mode, seconds, shardServerCpu, machine, lag.percentile(0.5), lag.percentile(0.99), promotion,
          failoverLoad);
    }
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
      m.put("rows/s", median(of.stream().map(r -> r.rowsPerSecond(rows))));
      m.put("shard-server CPU-s per 1,000 rows", median(of.stream().map(r -> r.shardServerCpuSeconds() * 1000 / rows)));
      m.put("machine CPU-s per 1,000 rows", median(of.stream().map(r -> r.machineCpuSeconds() * 1000 / rows)));
      m.put("replica lag p50 ms", median(of.stream().map(Run::lagP50Ms)));
      m.put("replica lag p99 ms", median(of.stream().map(Run::lagP99Ms)));
      m.put("promotion after kill -9, s", median(of.stream().map(Run::promotionSeconds)));
      m.put("load with the kill, s", median(of.stream().map(Run::failoverLoadSeconds)));
      medians.put(mode, m);
    }
    double ratio = medians.get("physical").get("rows/s") / medians.get("logical").get("rows/s");
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "## Physical against logical replication, %s%n%n",
        LocalDateTime.now().withNano(0)));
    md.append(String.format(Locale.ROOT, "`bin/evenkeel local --no-replay --shard-servers %d --shards %d --replicas 1 "
        + "--replication physical|logical`; %,d rows (%d Zipf(1) tenants) loaded with `bin/evenkeel load --wait` "
        + "after as many unmeasured (warm-up); "
        + "%d rounds per mode, alternating; medians. Failover: `kill -9` of shard-server-0 one second into a second "
        + "load of %,d rows (ZooKeeper session timeout 10 s).%n%n", shardServers, shards, rows, tenants, rounds,
        rows));
    md.append("| figure | physical | logical | physical / logical |\n|---|---:|---:|---:|\n");
    for (String figure : medians.get("physical").keySet()) {
      double p = medians.get("physical").get(figure);
      double l = medians.get("logical").get(figure);
      md.append(String.format(Locale.ROOT, "| %s | %,.2f | %,.2f | %.2f |%n", figure, p, l, l == 0 ? 0 : p / l));
    }
    md.append(String.format(Locale.ROOT, "%nLoad throughput, physical over logical: **%.2f×** (target ≥ 1.3×).%n%n",
        ratio));
    md.append("| round | mode | rows/s | shard-server CPU-s | lag p50 / p99 ms | promotion s | load with kill s |\n"
        + "|---:|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      md.append(String.format(Locale.ROOT, "| %d | %s | %,.0f | %.1f | %.0f / %.0f | %.1f | %.1f |%n", i / 2 + 1,
          r.mode(), r.rowsPerSecond(rows), r.shardServerCpuSeconds(), r.lagP50Ms(), r.lagP99Ms(),
          r.promotionSeconds(), r.failoverLoadSeconds()));
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Files.createDirectories(out);
    Path markdown = out.resolve("replication-" + stamp + ".md");
    Path png = out.resolve("replication-" + stamp + ".png");
    md.append(String.format("%n![physical against logical](%s)%n", png.getFileName()));
    Files.writeString(markdown, md);
    chart(png, medians);
    System.out.println();
    System.out.print(md);
    System.out.println("written: " + markdown + ", " + png);
  }

  private static void chart(Path png, Map<String, Map<String, Double>> medians) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (String mode : medians.keySet()) {
      data.addValue(medians.get(mode).get("rows/s") / 1000, mode, "load, thousand rows/s");
      data.addValue(medians.get(mode).get("shard-server CPU-s per 1,000 rows") * 10, mode,
          "shard-server CPU-s per 10,000 rows");
      data.addValue(medians.get(mode).get("replica lag p99 ms") / 100, mode, "replica lag p99, 0.1 s");
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
