package io.evenkeel.benchmarks.skew;

import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.skew.ScheduledRows.Group;
import io.evenkeel.benchmarks.skew.SkewPoint.Delays;
import io.evenkeel.benchmarks.skew.SkewPoint.Latencies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The skew benchmark's Markdown and charts: a table per workload, the claims checked, CPU by process; whether the
 * storage nodes were capped.
 */
record SkewReport(Path markdown, List<SkewPoint> points, boolean capped) {

  static SkewReport write(SkewBenchmark options, CpuCaps caps, List<SkewWorkload> workloads, List<SkewPoint> points,
      List<String> settings, Map<String, NodeProfiles.Summary> profiles) throws IOException {
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    ExperimentOutput output = new ExperimentOutput(options.out);
    String name = "skew-" + stamp;
    StringBuilder md = new StringBuilder();
    md.append("# Skewed writes on capacity-limited nodes: Evenkeel and OpenSearch\n\n");
    md.append(String.format(Locale.ROOT, "`java -cp benchmarks/target/benchmarks.jar "
        + "io.evenkeel.benchmarks.skew.SkewBenchmark%s` on %s, %s.%n%n", options.smoke ? " --smoke" : "",
        ExperimentOutput.machine(), stamp));
    md.append(String.format(Locale.ROOT, "- **Nodes**: %d storage nodes a side, %s.%n", options.nodes,
        caps.available() ? String.format(Locale.ROOT, "each in its own CPU cgroup capped at %.2f CPU (%s), "
            + "caps applied once the nodes were up; the ingest tier (Kafka, the Flink job, the query service, the "
            + "benchmark's writers) is uncapped", options.cpuPerNode, caps.describe())
            : "**uncapped**: " + caps.why()));
    md.append(String.format(Locale.ROOT, "- **Rows**: the same rows on both sides (seeded); %,d Zipf(θ) tenants; "
        + "%d shards / primaries, no replicas; OpenSearch's routing_partition_size %d. Writes by %d threads of %d "
        + "rows, due at a fixed rate whether or not the system keeps up (delays count from when a row was due).%n",
        options.tenants, options.shards, options.partitionSize, options.writers, options.rowsPerWrite));
    md.append(String.format(Locale.ROOT, "- **Measured**: over %.0f s after a %.0f s warm-up; each system fresh "
        + "for each workload (the OpenSearch routing choices one after another on one fresh cluster, in rotating "
        + "order); hot tenants = the %d most popular, small tenants = ranks beyond a tenth of all; %.0f tenant "
        + "queries a second (the tenant's 100 newest rows of three statuses); probes: about %.0f rows a second of "
        + "each group, looked for every 250 ms.%n", options.measure, options.warmup, ScheduledRows.HOT_TENANTS,
        options.queriesPerSecond, options.probesPerSecond));
    for (String setting : settings) {
      md.append("- ").append(setting).append('\n');
    }
    md.append('\n');
    for (SkewWorkload workload : workloads) {
      md.append("## ").append(workload.name()).append(String.format(Locale.ROOT, ", %,.0f rows/s offered%n%n",
          workload.rate()));
      md.append("| system | searchable rows/s | served | delay p50 / p99 ms, hot | small | query p50 / p99 ms, hot "
          + "| small | shards per query, hot / small | CPU s per 1,000 rows | capped nodes: cores, throttled |\n");
      md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
      for (SkewPoint point : of(points, workload)) {
        md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.0f%% | %s | %s | %s | %s | %s / %s | %.2f | %s |%n",
            point.system(), point.searchable(), 100 * point.served(), delays(point, Group.HOT),
            delays(point, Group.SMALL), latencies(point, Group.HOT), latencies(point, Group.SMALL),
            shards(point, Group.HOT), shards(point, Group.SMALL), point.cpuPerThousandRows(workload.measureSeconds()),
            nodes(point)));
      }
      md.append('\n');
    }
    claims(md, workloads, points);
    cpu(md, workloads, points);
    profiles(md, profiles);
    charts(md, output, name, workloads, points);
    Path file = options.out.resolve(name + ".md");
    Files.createDirectories(options.out);
    Files.writeString(file, md.toString());
    return new SkewReport(file, points, caps.available());
  }

  /** The claims, each with the figures it rests on. */
  private static void claims(StringBuilder md, List<SkewWorkload> workloads, List<SkewPoint> points) {
    md.append("## What the figures say\n\n");
    for (SkewWorkload workload : workloads) {
      if (workload.hasSurge()) {
        md.append("- **").append(workload.name()).append("**: small tenants' write-to-searchable p99 before the "
            + "surge and during it:");
        for (SkewPoint point : of(points, workload)) {
          md.append(String.format(Locale.ROOT, " %s %,.0f → %,.0f ms (%+.0f%%);", point.system(),
              point.steadySmallP99Millis(), point.surgeSmallP99Millis(),
              100 * (point.surgeSmallP99Millis() / point.steadySmallP99Millis() - 1)));
        }
        md.setLength(md.length() - 1);
        md.append(".\n");
        continue;
      }
      Optional<SkewPoint> evenkeel = of(points, workload).stream().filter(p -> p.system().startsWith("Evenkeel"))
          .findFirst();
      if (evenkeel.isEmpty()) {
        continue;
      }
      md.append("- **").append(workload.name()).append("**: Evenkeel's searchable rows/s against");
      for (SkewPoint point : of(points, workload)) {
        if (point != evenkeel.get()) {
          md.append(String.format(Locale.ROOT, " %s %.2f×;", point.system(),
              evenkeel.get().searchable() / point.searchable()));
        }
      }
      md.setLength(md.length() - 1);
      md.append(String.format(Locale.ROOT, ". Shards a tenant query visits: Evenkeel %s (hot) / %s (small)",
          shards(evenkeel.get(), Group.HOT), shards(evenkeel.get(), Group.SMALL)));
      for (SkewPoint point : of(points, workload)) {
        if (point != evenkeel.get()) {
          md.append(String.format(Locale.ROOT, ", %s %s / %s", point.system(), shards(point, Group.HOT),
              shards(point, Group.SMALL)));
        }
      }
      md.append(".\n");
    }
    md.append('\n');
  }

  /** CPU seconds per 1,000 searchable rows by process kind, per system and workload. */
  private static void cpu(StringBuilder md, List<SkewWorkload> workloads, List<SkewPoint> points) {
    md.append("## CPU seconds per 1,000 rows made searchable, by process\n\n");
    md.append("Every process of the system, and the benchmark client (this JVM: the writers, Kafka's producer or the "
        + "`_bulk` clients; the probes and tenant queries, the same on both sides).\n\n");
    for (SkewWorkload workload : workloads) {
      md.append("- ").append(workload.name()).append(": ");
      List<String> systems = new ArrayList<>();
      for (SkewPoint point : of(points, workload)) {
        double rows = point.searchable() * workload.measureSeconds() / 1_000;
        Map<String, Double> sorted = new TreeMap<>(point.cpuSeconds());
        List<String> parts = new ArrayList<>();
        sorted.forEach((process, seconds) -> parts.add(String.format(Locale.ROOT, "%s %.2f", process,
            seconds / rows)));
        systems.add(point.system() + ": " + String.join(", ", parts));
      }
      md.append(String.join("; ", systems)).append('\n');
    }
    md.append('\n');
  }

  /** Where the capped nodes' CPU went (JFR's execution samples of all of a system's nodes together). */
  private static void profiles(StringBuilder md, Map<String, NodeProfiles.Summary> profiles) {
    if (profiles.isEmpty()) {
      return;
    }
    md.append("## Where the capped nodes' CPU went\n\n");
    md.append("JFR execution samples of all of a system's storage nodes over the measured span (`--profile`); "
        + "\"by code\" counts a sample for the innermost frame outside the JDK.\n\n");
    profiles.forEach((run, summary) -> md.append("- ").append(run).append(": ").append(summary.describe())
        .append('\n'));
    md.append('\n');
  }

  private static void charts(StringBuilder md, ExperimentOutput output, String name, List<SkewWorkload> workloads,
      List<SkewPoint> points) throws IOException {
    Map<String, List<double[]>> throughput = new LinkedHashMap<>();
    for (SkewWorkload workload : workloads) {
      if (!workload.hasSurge()) {
        for (SkewPoint point : of(points, workload)) {
          throughput.computeIfAbsent(point.system(), s -> new ArrayList<>())
              .add(new double[] {workload.theta(), point.searchable()});
        }
      }
    }
    if (!throughput.isEmpty()) {
      Path png = output.lineChart(name + "-theta", "Rows searchable a second against skew (capped nodes)", "θ",
          "rows/s", throughput, false);
      md.append("![throughput against θ](").append(png.getFileName()).append(")\n\n");
    }
    for (SkewWorkload workload : workloads) {
      if (!workload.hasSurge()) {
        continue;
      }
      Map<String, List<double[]>> searchable = new LinkedHashMap<>();
      Map<String, List<double[]>> delay = new LinkedHashMap<>();
      for (SkewPoint point : of(points, workload)) {
        SkewPoint.Timeline timeline = point.timeline();
        if (searchable.isEmpty()) {
          searchable.put("offered", series(timeline.offered()));
        }
        searchable.put(point.system(), series(timeline.searchable()));
        delay.put(point.system(), series(timeline.smallDelayMillis()));
      }
      Path rows = output.lineChart(name + "-surge", "Surge: rows searchable each second (surge from "
          + (int) workload.surgeStart() + " s to " + (int) workload.surgeEnd() + " s)", "second", "rows/s",
          searchable, false);
      Path delays = output.lineChart(name + "-surge-delay", "Surge: small tenants' median write-to-searchable delay",
          "second (row due)", "ms", delay, true);
      md.append("![surge](").append(rows.getFileName()).append(")\n\n![surge delay](")
          .append(delays.getFileName()).append(")\n\n");
    }
  }

  private static List<double[]> series(double[] values) {
    List<double[]> points = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      if (!Double.isNaN(values[i]) && values[i] > 0) {
        points.add(new double[] {i, values[i]});
      }
    }
    return points;
  }

  private static List<SkewPoint> of(List<SkewPoint> points, SkewWorkload workload) {
    return points.stream().filter(point -> point.workload().equals(workload.name())).toList();
  }

  private static String delays(SkewPoint point, Group group) {
    Delays delays = point.delays().getOrDefault(group, SkewPoint.EMPTY_DELAYS);
    return String.format(Locale.ROOT, "%,.0f / %,.0f%s", delays.p50Millis(), delays.p99Millis(),
        delays.unseen() > 0 ? String.format(Locale.ROOT, " (%d of %d unseen)", delays.unseen(), delays.probes())
            : "");
  }

  private static String latencies(SkewPoint point, Group group) {
    Latencies latencies = point.queries().getOrDefault(group, SkewPoint.EMPTY_LATENCIES);
    return String.format(Locale.ROOT, "%.1f / %.1f%s", latencies.p50Millis(), latencies.p99Millis(),
        latencies.refused() > 0 ? String.format(Locale.ROOT, " (%d of %d refused as busy)", latencies.refused(),
            latencies.queries()) : "");
  }

  private static String shards(SkewPoint point, Group group) {
    return String.format(Locale.ROOT, "%.1f", point.queries().getOrDefault(group, SkewPoint.EMPTY_LATENCIES)
        .meanShards());
  }

  private static String nodes(SkewPoint point) {
    if (point.nodes().isEmpty()) {
      return "uncapped";
    }
    List<String> nodes = new ArrayList<>();
    point.nodes().forEach(node -> nodes.add(String.format(Locale.ROOT, "%.2f, %.0f%%", node.cores(),
        100 * node.throttledShare())));
    return String.join("; ", nodes);
  }
}
