package io.evenkeel.benchmarks.skew;

import io.evenkeel.benchmarks.peer.OpenSearchCluster;
import io.evenkeel.benchmarks.peer.OpenSearchCluster.OpenSearchRouting;
import io.evenkeel.benchmarks.skew.SkewRun.Drive;
import io.evenkeel.schemas.codec.AvroTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Skewed writes on a cluster of capacity-limited nodes, Evenkeel against OpenSearch in its three routing choices: N
 * storage nodes on this machine (Evenkeel's shard servers, OpenSearch's nodes), each in its own CPU cgroup with the
 * same quota, the ingest tier uncapped on both sides; the same rows and tenant queries offered to each system alone.
 * Per workload (Zipf θ = 0, 1, 1.5 over many tenants at a fixed rate above the capped cluster's balanced capacity,
 * and a surge of one tenant at a rate below it): rows searchable a second, write-to-searchable delay and
 * tenant-query latency of hot and small tenants, shards a tenant query visits, CPU per 1,000 rows by process, and
 * how much each capped node was throttled. Markdown and PNG charts in {@code --out}.
 */
@Command(name = "skew-benchmark", mixinStandardHelpOptions = true,
    description = "Skewed writes on capacity-limited nodes: Evenkeel against OpenSearch routed by _id, by tenant and "
        + "by tenant with routing_partition_size.")
public final class SkewBenchmark implements Callable<Integer> {
  private static final long SEED = 20_221_111;
  private static final long ROWS_PER_RUN = 10_000_000_000L;
  /** The pre-warm loads' tenants: ranges beyond the measured workloads'. */
  private static final int PREWARM_TENANTS = 100;
  /** How long the pre-warm load may take to become searchable before the caps go on. */
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);

  @Option(names = "--nodes", defaultValue = "4", description = "Storage nodes per system (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--cpu-per-node", defaultValue = "0.2",
      description = "Each storage node's CPU quota in cores (default: ${DEFAULT-VALUE}).")
  double cpuPerNode;

  @Option(names = "--shards", defaultValue = "8",
      description = "Evenkeel's shards and OpenSearch's primaries (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(names = "--partition-size", defaultValue = "4",
      description = "OpenSearch's index.routing_partition_size (default: ${DEFAULT-VALUE}).")
  int partitionSize;

  @Option(names = "--tenants", defaultValue = "10000", description = "(default: ${DEFAULT-VALUE})")
  int tenants;

  @Option(names = "--rate", defaultValue = "6000",
      description = "Rows offered a second in the θ workloads (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--surge-rate", defaultValue = "1200",
      description = "Rows offered a second in the surge workload, below the capped cluster's capacity "
          + "(default: ${DEFAULT-VALUE}).")
  double surgeRate;

  @Option(names = "--thetas", split = ",", defaultValue = "0,1,1.5", description = "(default: ${DEFAULT-VALUE})")
  List<Double> thetas;

  @Option(names = "--no-surge", description = "Leave out the surge workload.")
  boolean noSurge;

  @Option(names = "--prewarm", defaultValue = "120",
      description = "Seconds of load (other tenants' rows, at the surge's rate) on a freshly started system before its"
          + " nodes are capped, so that its JIT compilers do not start under the cap (default: ${DEFAULT-VALUE}).")
  double prewarm;

  @Option(names = "--warmup", defaultValue = "30",
      description = "Seconds of the workload before measuring (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(names = "--measure", defaultValue = "60", description = "Seconds measured (default: ${DEFAULT-VALUE}).")
  double measure;

  @Option(names = "--surge-seconds", defaultValue = "60", description = "(default: ${DEFAULT-VALUE})")
  double surgeSeconds;

  @Option(names = "--writers", defaultValue = "4",
      description = "Writer threads on each side (OpenSearch: concurrent _bulk requests) (default: ${DEFAULT-VALUE}).")
  int writers;

  @Option(names = "--rows-per-write", defaultValue = "1000",
      description = "Rows per _bulk request, and per hand-over to Kafka's producer (default: ${DEFAULT-VALUE}).")
  int rowsPerWrite;

  @Option(names = "--queries-per-second", defaultValue = "10",
      description = "Tenant queries a second, hot and small tenants in turn (default: ${DEFAULT-VALUE}).")
  double queriesPerSecond;

  @Option(names = "--probes-per-second", defaultValue = "20",
      description = "Probe rows a second per tenant group (default: ${DEFAULT-VALUE}).")
  double probesPerSecond;

  @Option(names = "--opensearch-heap", defaultValue = "1g", description = "Per node (default: ${DEFAULT-VALUE}).")
  String openSearchHeap;

  @Option(names = "--policy", defaultValue = "dynamic",
      description = "Evenkeel's routing policy (default: ${DEFAULT-VALUE}).")
  String policy;

  @Option(names = "--systems", split = ",", defaultValue = "evenkeel,opensearch",
      description = "Which systems run (default: ${DEFAULT-VALUE}).")
  List<String> systems;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results",
      description = "Where the Markdown and the PNGs go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--profile", paramLabel = "DIR",
      description = "Record each capped node with JFR over every measured span into DIR, and say in the report where "
          + "the nodes' CPU went.")
  Path profile;

  @Option(names = "--smoke",
      description = "Two nodes (OpenSearch's on 512 MB heaps) capped at 0.5 CPU at least, short runs at a low rate:"
          + " checks the command works.")
  boolean smoke;

  /** What runs now, closed in reverse order at the end or when the JVM is asked to stop (Ctrl-C). */
  private final Deque<AutoCloseable> running = new ConcurrentLinkedDeque<>();
  /** Where the capped nodes' CPU went, by system and workload, when {@code --profile} is given. */
  private final Map<String, NodeProfiles.Summary> profiles = new LinkedHashMap<>();

  public static void main(String[] args) {
    SkewBenchmark benchmark = new SkewBenchmark();
    Runtime.getRuntime().addShutdownHook(new Thread(benchmark::closeRunning, "skew-benchmark-stop"));
    System.exit(new CommandLine(benchmark).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    SkewReport report = run();
    System.out.println(Files.readString(report.markdown()));
    System.out.println("written: " + report.markdown() + " and its charts");
    return 0;
  }

  /** Runs every workload on each system in turn; the work directory is removed after. */
  public SkewReport run() throws Exception {
    AvroTrust.install();
    if (smoke) {
      nodes = Math.min(nodes, 2);
      shards = Math.min(shards, 4);
      partitionSize = Math.min(partitionSize, 2);
      tenants = Math.min(tenants, 500);
      rate = Math.min(rate, 500);
      // At 0.2 CPU a node, OpenSearch's delay (8-25 s on a machine busy with other tests) outlasts the short window.
      cpuPerNode = Math.max(cpuPerNode, 0.5);
      surgeRate = Math.min(surgeRate, 300);
      thetas = List.of(1.0);
      prewarm = Math.min(prewarm, 3);
      warmup = Math.min(warmup, 2);
      measure = Math.min(measure, 5);
      surgeSeconds = Math.min(surgeSeconds, 4);
      queriesPerSecond = Math.min(queriesPerSecond, 4);
      probesPerSecond = Math.min(probesPerSecond, 5);
      rowsPerWrite = Math.min(rowsPerWrite, 200);
      openSearchHeap = "512m";
    }
    if (nodes < 1 || shards < nodes || partitionSize < 2 || partitionSize >= shards) {
      throw new CommandLine.ParameterException(new CommandLine(this), "need 1 <= --nodes <= --shards and "
          + "1 < --partition-size < --shards");
    }
    repo = repo.toAbsolutePath().normalize();
    List<SkewWorkload> workloads = workloads();
    Path work = Files.createTempDirectory("evenkeel-skew-");
    CpuCaps caps = CpuCaps.open("skew");
    running.add(caps);
    System.out.println(caps.available() ? "capping each storage node at " + cpuPerNode + " CPU (" + caps.describe()
        + ")" : caps.why());
    try {
      List<SkewPoint> points = new ArrayList<>();
      List<String> settings = new ArrayList<>();
      if (systems.contains("evenkeel")) {
        for (int w = 0; w < workloads.size(); w++) {
          Path data = work.resolve("evenkeel-" + w);
          SkewTarget target = EvenkeelTarget.start(repo, data, nodes, shards, policy);
          points.add(measure(target, caps, workloads.get(w), w, settings));
        }
      }
      if (systems.contains("opensearch")) {
        for (int w = 0; w < workloads.size(); w++) {
          try (OpenSearchCluster cluster = OpenSearchCluster.start(repo, work.resolve("opensearch-" + w), nodes,
              openSearchHeap)) {
            running.add(cluster);
            prewarm(new OpenSearchTarget(cluster, OpenSearchRouting.BY_ID, shards, partitionSize, openSearchHeap),
                workloads.get(w), w);
            List<CpuCaps.Group> groups = cap(caps, cluster.pids().stream()
                .map(pid -> ProcessHandle.of(pid).orElseThrow()).toList(), "opensearch-" + w);
            // Rotated, so that no routing choice always runs first on a fresh cluster.
            List<OpenSearchRouting> routings = new ArrayList<>(List.of(OpenSearchRouting.values()));
            Collections.rotate(routings, -w);
            for (OpenSearchRouting routing : routings) {
              OpenSearchTarget target = new OpenSearchTarget(cluster, routing, shards, partitionSize, openSearchHeap);
              points.add(measure(target, groups, workloads.get(w), w, settings));
            }
            running.remove(cluster);
          }
        }
      }
      return SkewReport.write(this, caps, workloads, points, settings, profiles);
    } finally {
      closeRunning();
      IOUtils.rm(work);
    }
  }

  private List<SkewWorkload> workloads() {
    List<SkewWorkload> workloads = new ArrayList<>();
    for (double theta : thetas) {
      workloads.add(SkewWorkload.steady(theta, tenants, rate, warmup, measure));
    }
    if (!noSurge) {
      double measured = Math.max(measure, 2 * surgeSeconds);
      workloads.add(SkewWorkload.surge(1.0, tenants, surgeRate, warmup, measured, (measured - surgeSeconds) / 2,
          surgeSeconds, 0.5));
    }
    return workloads;
  }

  /** A fresh Evenkeel stack for one workload: capped, measured, stopped. */
  private SkewPoint measure(SkewTarget target, CpuCaps caps, SkewWorkload workload, int index, List<String> settings)
      throws Exception {
    running.add(target);
    try {
      prewarm(target, workload, index);
      List<CpuCaps.Group> groups = cap(caps, target.storageNodes(), "evenkeel-" + index);
      return measure(target, groups, workload, index, settings);
    } finally {
      running.remove(target);
      target.close();
    }
  }

  /** Load at the surge's rate (the workload's if lower), uncapped and unmeasured, on tenants and rows of their own. */
  private void prewarm(SkewTarget target, SkewWorkload workload, int index) throws Exception {
    if (prewarm <= 0) {
      return;
    }
    // At the surge's rate, below capacity: the system drains it quickly, and no backlog of it meets the workload.
    double rate = Math.min(workload.rate(), surgeRate);
    System.out.printf(Locale.ROOT, "%s: %.0f s of %,.0f rows/s before the caps ...%n", target.name(), prewarm, rate);
    SkewWorkload load = SkewWorkload.steady(workload.theta(), workload.tenants(), rate, prewarm, 0);
    long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    ScheduledRows rows = new ScheduledRows(load, SEED - index, (index + 1) * ROWS_PER_RUN + ROWS_PER_RUN / 2,
        (long) (index + PREWARM_TENANTS) * workload.tenants(), 0, start);
    new SkewRun(target, load, rows, new Drive(writers, rowsPerWrite, queriesPerSecond, 0)).run(start, List.of());
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    while (target.count() < load.rows() && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
  }

  /** One run of {@code workload} on a started, capped system. */
  private SkewPoint measure(SkewTarget target, List<CpuCaps.Group> groups, SkewWorkload workload, int index,
      List<String> settings) throws Exception {
    if (!settings.contains(target.settings())) {
      settings.add(target.settings());
    }
    System.out.printf(Locale.ROOT, "%s under %s: %,.0f rows/s for %.0f + %.0f s ...%n", target.name(),
        workload.name(), workload.rate(), workload.warmupSeconds(), workload.measureSeconds());
    long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    ScheduledRows rows = new ScheduledRows(workload, SEED + index, (index + 1) * ROWS_PER_RUN,
        (long) index * workload.tenants(), probesPerSecond, start);
    NodeProfiles recordings = profile == null || groups.isEmpty() ? null : NodeProfiles.schedule(
        target.storageNodes(), start + TimeUnit.MILLISECONDS.toNanos((long) (workload.warmupSeconds() * 1000)),
        workload.measureSeconds(), profile, target.name().replaceAll("\\W+", "-") + "-" + index);
    SkewRun.Measured measured = new SkewRun(target, workload, rows,
        new Drive(writers, rowsPerWrite, queriesPerSecond, probesPerSecond)).run(start, groups);
    SkewPoint point = SkewPoint.of(target.name(), workload, measured);
    if (recordings != null) {
      profiles.put(point.system() + " under " + point.workload(), recordings.summary());
    }
    System.out.printf(Locale.ROOT, "  searchable %,.0f rows/s of %,.0f offered; small tenants' delay p99 %,.0f ms;"
        + " hot tenants' queries p99 %,.1f ms%n", point.searchable(), point.offered(),
        point.delays().getOrDefault(ScheduledRows.Group.SMALL, SkewPoint.EMPTY_DELAYS).p99Millis(),
        point.queries().getOrDefault(ScheduledRows.Group.HOT, SkewPoint.EMPTY_LATENCIES).p99Millis());
    return point;
  }

  /** Each process in a group of its own with the node quota; none when caps are not available. */
  private List<CpuCaps.Group> cap(CpuCaps caps, List<ProcessHandle> storageNodes, String prefix) throws Exception {
    List<CpuCaps.Group> groups = new ArrayList<>();
    if (!caps.available()) {
      return groups;
    }
    if (storageNodes.size() != nodes) {
      throw new IllegalStateException("expected " + nodes + " storage nodes, found " + storageNodes.size());
    }
    for (int i = 0; i < storageNodes.size(); i++) {
      CpuCaps.Group group = caps.cap(prefix + "-node-" + i, cpuPerNode);
      group.add(storageNodes.get(i).pid());
      groups.add(group);
    }
    return groups;
  }

  private void closeRunning() {
    for (AutoCloseable part = running.pollLast(); part != null; part = running.pollLast()) {
      try {
        part.close();
      } catch (Exception e) {
        System.err.println("could not stop " + part + ": " + e);
      }
    }
  }
}
