package io.evenkeel.benchmarks.simulator;

import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * ESDB's write experiments on the simulator, at the paper's scale or a smoke scale: throughput and delay against the
 * generating rate [fig. 10] and against the skew θ [fig. 11], the spread of per-shard and per-server throughput
 * [fig. 12] and of shard sizes [fig. 13d], and throughput over time while hotspot groups arrive [fig. 14]; for each
 * routing policy. Each writes CSV and PNG files and its section of the report.
 */
@Command(name = "simulated-experiments", mixinStandardHelpOptions = true,
    description = "Runs ESDB's write experiments (figures 10-14) on the simulator and writes CSV, PNG and the"
        + " report's sections.")
public final class SimulatedExperiments implements Callable<Integer> {
  /** The cores of each of ESDB's nodes. */
  private static final int ESDB_VCPUS = 8;

  @Option(names = "--experiment", defaultValue = "all",
      description = "rate, theta, adaptivity or all (default: ${DEFAULT-VALUE}).")
  String experiment;

  @Option(names = "--scale", defaultValue = "paper",
      description = "paper (8 servers, 512 shards, 100,000 tenants) or smoke (seconds). (default: ${DEFAULT-VALUE})")
  String scale;

  @Option(names = "--out", defaultValue = "benchmarks/results/paper", description = "CSV and PNG files go here.")
  Path out;

  @Option(names = "--report", defaultValue = "benchmarks/REPORT.md", description = "The report to update.")
  Path report;

  private ExperimentOutput output;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SimulatedExperiments()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Scenario base = switch (scale) {
      case "paper" -> calibrated(Scenario.paper());
      case "smoke" -> Scenario.smoke();
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "--scale is paper or smoke");
    };
    output = new ExperimentOutput(out);
    boolean all = experiment.equals("all");
    if (all || experiment.equals("rate")) {
      rate(base);
    }
    if (all || experiment.equals("theta")) {
      theta(base);
    }
    if (all || experiment.equals("adaptivity")) {
      adaptivity(base);
    }
    if (!all && !List.of("rate", "theta", "adaptivity").contains(experiment)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--experiment is rate, theta, adaptivity or"
          + " all");
    }
    System.out.println("report: " + report);
    return 0;
  }

  /**
   * The paper's cluster with this machine's measured costs, from the real stacks' calibration ({@code
   * StackExperiments --experiment calibrate}: rows written straight to one shard, and to every shard of one server):
   * a shard indexes what one shard did here, and a server of ESDB's {@value #ESDB_VCPUS} vCPUs what this machine's
   * server did per core, times {@value #ESDB_VCPUS}. Without a calibration, the scenario's own capacities.
   */
  private Scenario calibrated(Scenario paper) throws IOException {
    Path csv = out.resolve("stack-calibration.csv");
    Map<String, Double> measured = ExperimentOutput.firstNumericRow(csv);
    if (measured.containsKey("shard_direct_rows_per_s")) {
      double server = measured.get("server_direct_rows_per_s") / measured.get("cores") * ESDB_VCPUS;
      return paper.withCapacities(Math.round(measured.get("shard_direct_rows_per_s")), Math.round(server));
    }
    System.out.println("no measured shard costs in " + csv + " (StackExperiments --experiment calibrate): the"
        + " scenario's own capacities");
    return paper;
  }

  /** Fig. 10: θ = 1, the generating rate from a fifth of the cluster's capacity to above it. */
  List<SimulationResult> rate(Scenario base) throws Exception {
    List<SimulationResult> results = new ArrayList<>();
    for (double fraction : new double[] {0.2, 0.4, 0.6, 0.8, 1.0, 1.2}) {
      results.addAll(runAll(base.withRate(fraction * base.clusterCapacity()), "rate " + fraction + "x capacity"));
    }
    output.csv("rate", header(), rows(results));
    Path throughput = output.lineChart("rate-throughput", "Write throughput against generating rate (θ = 1)",
        "generating rate (writes/s)", "throughput (writes/s)", series(results, SimulationResult::offered,
            SimulationResult::throughput), false);
    Path delay = output.lineChart("rate-delay", "Write delay p99 against generating rate (θ = 1)",
        "generating rate (writes/s)", "delay p99 (ms, log)", series(results, SimulationResult::offered,
            SimulationResult::delayP99Millis), true);
    section("simulated-rate", "Simulated: write throughput and delay against the generating rate [ESDB fig. 10]",
        "rate", base, results, List.of(throughput, delay));
    return results;
  }

  /** Figs. 11, 12, 13d: θ from 0 to 2 at 60% of the cluster's capacity. */
  List<SimulationResult> theta(Scenario base) throws Exception {
    List<SimulationResult> results = new ArrayList<>();
    for (double theta : new double[] {0, 0.5, 1, 1.5, 2}) {
      results.addAll(runAll(base.withTheta(theta).withRate(0.6 * base.clusterCapacity()), "θ " + theta));
    }
    output.csv("theta", header(), rows(results));
    ToDoubleFunction<SimulationResult> theta = r -> r.scenario().theta();
    List<Path> charts = List.of(
        output.lineChart("theta-throughput", "Write throughput against skew (rate 60% of capacity)", "θ",
            "throughput (writes/s)", series(results, theta, SimulationResult::throughput), false),
        output.lineChart("theta-delay", "Write delay p99 against skew", "θ", "delay p99 (ms, log)",
            series(results, theta, SimulationResult::delayP99Millis), true),
        output.lineChart("theta-spread", "Spread of per-server throughput [fig. 12]", "θ",
            "std dev / mean", series(results, theta, SimulationResult::serverThroughputSpread), false),
        output.lineChart("theta-shard-size", "Largest over smallest shard [fig. 13d]", "θ",
            "max/min rows per shard (log)", series(results, theta, SimulationResult::shardSizeMaxOverMin), true));
    section("simulated-theta", "Simulated: throughput, delay and balance against the skew θ [ESDB figs. 11, 12,"
        + " 13d]", "theta", base, results, charts);
    return results;
  }

  /** Fig. 14: θ = 1 at 60% of capacity; a new group of hot tenants arrives at a third and at two thirds of the run. */
  List<SimulationResult> adaptivity(Scenario base) throws Exception {
    double duration = base.durationSeconds() * 1.5;
    Scenario scenario = base.withRate(0.6 * base.clusterCapacity()).withDuration(duration, 0)
        .withHotspotArrivals(duration / 3, 2 * duration / 3);
    List<SimulationResult> results = runAll(scenario, "hotspots arriving");
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    List<List<Object>> rows = new ArrayList<>();
    for (SimulationResult result : results) {
      List<double[]> points = new ArrayList<>();
      for (int second = 0; second < result.timeline().length; second++) {
        points.add(new double[] {second, result.timeline()[second]});
        rows.add(List.of(result.policy(), second, result.timeline()[second]));
      }
      lines.put(result.policy(), points);
    }
    output.csv("adaptivity", List.of("policy", "second", "throughput"), rows);
    Path chart = output.lineChart("adaptivity", String.format(Locale.ROOT, "Write throughput while hotspot groups"
        + " arrive (at %.0f s and %.0f s)", duration / 3, 2 * duration / 3), "seconds", "throughput (writes/s)", lines,
        false);
    StringBuilder table = new StringBuilder("| policy | recovery after 1st arrival | after 2nd | rules |\n"
        + "|---|---:|---:|---:|\n");
    for (SimulationResult result : results) {
      table.append(String.format(Locale.ROOT, "| %s | %s | %s | %d |%n", result.policy(),
          recovery(result, scenario.hotspotArrivals()[0], scenario.hotspotArrivals()[1]),
          recovery(result, scenario.hotspotArrivals()[1], duration), result.rules()));
    }
    writeSection("simulated-adaptivity", "Simulated: adaptivity while hotspot groups arrive [ESDB fig. 14]",
        "adaptivity", scenario, table.toString(), List.of(chart));
    return results;
  }

  /** {@link #recovery(double[], double, double, double)} of a simulated run. */
  static String recovery(SimulationResult result, double from, double to) {
    return recovery(result.timeline(), result.scenario().rate(), from, to);
  }

  /**
   * Seconds from a hotspot's arrival at {@code from} until the writes done each second ({@code timeline}) keep within
   * 5% of the generating rate for the rest of the phase (until {@code to}), or "never".
   */
  public static String recovery(double[] timeline, double rate, double from, double to) {
    int start = (int) Math.ceil(from);
    int end = (int) Math.min(timeline.length, Math.floor(to));
    for (int second = start; second < end; second++) {
      boolean steady = true;
      for (int later = second; later < end && steady; later++) {
        steady = timeline[later] >= 0.95 * rate;
      }
      if (steady) {
        return (second - start) + " s";
      }
    }
    return "never";
  }

  private List<SimulationResult> runAll(Scenario scenario, String label) {
    List<SimulationResult> results = new ArrayList<>();
    for (String policy : Simulation.POLICIES) {
      long started = System.nanoTime();
      SimulationResult result = new Simulation(scenario).run(policy);
      results.add(result);
      System.out.printf(Locale.ROOT, "%-26s %-26s offered %,10.0f  throughput %,10.0f (%5.1f%%)  p99 %,9.0f ms"
              + "  rules %3d  (%.1f s)%n", label, result.policy(), result.offered(), result.throughput(),
          100 * result.served(), result.delayP99Millis(), result.rules(), (System.nanoTime() - started) / 1e9);
    }
    return results;
  }

  private static List<String> header() {
    return List.of("policy", "theta", "rate", "offered", "throughput", "delay_p50_ms", "delay_p99_ms",
        "shard_relative_stddev", "server_relative_stddev", "shard_size_max_over_min", "fanout_top10", "fanout_others", "rules");
  }

  private static List<List<Object>> rows(List<SimulationResult> results) {
    List<List<Object>> rows = new ArrayList<>();
    for (SimulationResult r : results) {
      rows.add(List.of(r.policy(), r.scenario().theta(), r.scenario().rate(), r.offered(), r.throughput(),
          r.delayP50Millis(), r.delayP99Millis(), r.shardThroughputSpread(), r.serverThroughputSpread(),
          r.shardSizeMaxOverMin(), r.fanOutTop(), r.fanOutOthers(), r.rules()));
    }
    return rows;
  }

  private static Map<String, List<double[]>> series(List<SimulationResult> results, ToDoubleFunction<SimulationResult> x,
      ToDoubleFunction<SimulationResult> y) {
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    for (SimulationResult result : results) {
      lines.computeIfAbsent(result.policy(), policy -> new ArrayList<>())
          .add(new double[] {x.applyAsDouble(result), Math.max(y.applyAsDouble(result), 1e-3)});
    }
    return lines;
  }

  private void section(String name, String title, String csv, Scenario base, List<SimulationResult> results,
      List<Path> charts) throws Exception {
    StringBuilder table = new StringBuilder("| policy | θ | offered (w/s) | throughput (w/s) | served | delay p50 / p99"
        + " (ms) | shard / server std dev / mean | shard size max/min | fan-out top 10 / others | rules |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (SimulationResult r : results) {
      table.append(String.format(Locale.ROOT, "| %s | %.1f | %,.0f | %,.0f | %.1f%% | %,.0f / %,.0f | %.2f / %.2f |"
              + " %.2f | %.1f / %.1f | %d |%n", r.policy(), r.scenario().theta(), r.offered(), r.throughput(),
          100 * r.served(), r.delayP50Millis(), r.delayP99Millis(), r.shardThroughputSpread(),
          r.serverThroughputSpread(), r.shardSizeMaxOverMin(), r.fanOutTop(), r.fanOutOthers(), r.rules()));
    }
    writeSection(name, title, csv, base, table.toString(), charts);
  }

  private void writeSection(String name, String title, String csv, Scenario scenario, String table,
      List<Path> charts) throws Exception {
    PaperReport.section(report, name, title, "java -cp benchmarks/target/benchmarks.jar " + getClass().getName()
        + " --experiment " + csv + " --scale " + scale, "Scenario: " + scenario, output.dir().resolve(csv + ".csv"),
        table, charts);
  }
}
