package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.replay.TraceGenerator;
import io.evenkeel.benchmarks.replay.TraceSpec;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import io.evenkeel.benchmarks.simulator.Scenario;
import io.evenkeel.benchmarks.simulator.SimulatedExperiments;
import io.evenkeel.benchmarks.simulator.Simulation;
import io.evenkeel.benchmarks.simulator.SimulationResult;
import io.evenkeel.schemas.codec.AvroTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * ESDB's write experiments on the real stack: a calibration (one shard's measured capacity and the pipeline's delay),
 * throughput and delay against the generating rate at θ = 1 [fig. 10] and against θ [fig. 11], with the ten hottest
 * and ten small tenants' queries after each θ point [fig. 16], and throughput while hot groups arrive [fig. 14]; for
 * hashing, double hashing (L = 8), dynamic secondary hashing and LogStore's max-flow tables, each point on a fresh
 * {@code bin/evenkeel local} whose shards have a fixed write capacity. Every point is drawn beside the simulator's
 * for the same cluster (calibrated by the measured capacity and delay) and the simulator's error is reported. Writes
 * CSV and PNG files and the report's sections.
 */
@Command(name = "stack-experiments", mixinStandardHelpOptions = true,
    description = "Runs ESDB's experiments of figures 10, 11, 14 and 16 on real local stacks, beside the simulator's"
        + " figures for the same cluster, and writes CSV, PNG and the report's sections.")
public final class StackExperiments implements Callable<Integer> {
  /** The simulator's name for each real policy. */
  private static final Map<String, String> SIMULATED = Map.of("hashing", "hashing", "double:8", "double-hashing",
      "dynamic", "dynamic", "logstore", "logstore");
  private static final long SEED = 11;
  /** The adaptivity replay's skew (see {@link #adaptivity()}). */
  private static final double ADAPTIVITY_THETA = 1.5;
  /** Seconds in the trailing mean of rows searchable a second: a refresh makes rows appear in bursts. */
  private static final int SMOOTHING = 10;

  @Option(names = "--experiment", defaultValue = "all",
      description = "calibrate, rate, theta, adaptivity or all (default: ${DEFAULT-VALUE}).")
  String experiment;

  @Option(names = "--scale", defaultValue = "full",
      description = "full (2 servers, 16 shards, about 85 minutes for all) or smoke (minutes). (default:"
          + " ${DEFAULT-VALUE})")
  String scale;

  @Option(names = "--policies", split = ",", description = "Only these of the scale's policies (hashing, double:8,"
      + " dynamic, logstore); the report's sections then hold only them.")
  List<String> policies;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout whose bin/evenkeel runs.")
  Path repo;

  @Option(names = "--work", description = "Traces and the stacks' data go here (default: a new temporary directory,"
      + " deleted at the end).")
  Path work;

  @Option(names = "--out", defaultValue = "benchmarks/results/paper", description = "CSV and PNG files go here.")
  Path out;

  @Option(names = "--report", defaultValue = "benchmarks/REPORT.md", description = "The report to update.")
  Path report;

  private StackSetup setup;
  private ExperimentOutput output;
  private Calibration calibration;

  /** What the calibration measured: one shard's rows/s under overload, the pipeline's median delay at low load. */
  record Calibration(double shardCapacity, double delayFloorMillis) {}

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new StackExperiments()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    setup = switch (scale) {
      case "full" -> StackSetup.full();
      case "smoke" -> StackSetup.smoke();
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "--scale is full or smoke");
    };
    if (policies != null) {
      setup = setup.withPolicies(policies);
    }
    if (!List.of("calibrate", "rate", "theta", "adaptivity", "all").contains(experiment)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--experiment is calibrate, rate, theta,"
          + " adaptivity or all");
    }
    boolean temporary = work == null;
    work = temporary ? Files.createTempDirectory("evenkeel-experiments") : Files.createDirectories(work);
    output = new ExperimentOutput(out);
    System.out.println("stack: " + setup);
    try {
      boolean all = experiment.equals("all");
      calibration = all || experiment.equals("calibrate") ? calibrate() : readCalibration();
      if (all || experiment.equals("rate")) {
        rate();
      }
      if (all || experiment.equals("theta")) {
        theta();
      }
      if (all || experiment.equals("adaptivity")) {
        adaptivity();
      }
    } finally {
      if (temporary) {
        IOUtils.rm(work);
      }
    }
    System.out.println("report: " + report);
    return 0;
  }

  /**
   * One tenant under hashing, so one shard takes every row: first at a fifth of a shard's capacity (the probes'
   * median delay is the pipeline's own: Kafka, the job's batching, the refresh), then at twice it (the rows that
   * become searchable a second are what one shard really indexes).
   */
  Calibration calibrate() throws Exception {
    double cap = setup.shardCapacity();
    double seconds = setup.warmupSeconds() + setup.measureSeconds();
    TraceSpec light = new TraceSpec(seconds, 0.2 * cap, 1, 0, 0, 1, 0, new double[0], SEED);
    TraceSpec heavy = new TraceSpec(seconds, 2 * cap, 1, 0, 0, 1, 0, new double[0], SEED);
    ReplayPoint floor;
    ReplayPoint overload;
    try (EvenkeelPeer stack = startStack("calibration", "hashing")) {
      floor = ReplayPoint.measure("hashing", light, trace("calibration-light", light), stack, setup);
      print("calibration, 20% of a shard", floor);
      overload = ReplayPoint.measure("hashing", heavy, trace("calibration-heavy", heavy), stack, setup);
      print("calibration, 200% of a shard", overload);
    }
    Calibration measured = new Calibration(overload.throughput(), floor.delayP50Millis());
    int costShards = 8;
    ShardCosts costs = ShardCosts.measure(repo, work.resolve("stack-shard-costs"), costShards,
        scale.equals("smoke") ? 5_000 : 200_000);
    System.out.printf(Locale.ROOT, "calibration, uncapped direct writes: one shard %,.0f rows/s, %d shards of one"
        + " server %,.0f rows/s (%d cores)%n", costs.shardRowsPerSecond(), costShards, costs.serverRowsPerSecond(),
        costs.cores());
    Path csv = output.csv("stack-calibration", List.of("configured_capacity", "offered_light", "delay_p50_light_ms",
        "offered_heavy", "throughput_heavy", "shard_direct_rows_per_s", "server_direct_rows_per_s", "cores"),
        List.of(List.of(cap, floor.offered(), floor.delayP50Millis(), overload.offered(), overload.throughput(),
            costs.shardRowsPerSecond(), costs.serverRowsPerSecond(), costs.cores())));
    String table = String.format(Locale.ROOT, """
        | measured | value |
        |---|---:|
        | a shard's write capacity, configured | %,.0f changes/s |
        | one tenant at %,.0f rows/s: probes' delay p50 / p99 (the pipeline's own) | %,.0f / %,.0f ms |
        | one tenant at %,.0f rows/s: rows searchable a second (a shard's real capacity) | %,.0f rows/s |
        | uncapped, rows written straight to one shard: acknowledged a second | %,.0f rows/s |
        | uncapped, rows written straight to all %d shards of one server: acknowledged a second (%d cores) | %,.0f rows/s |

        The simulator's shard capacity for the real-stack sections is the third figure; its delays get the second
        added (the simulator counts only the wait to be indexed). The simulator at paper scale takes the last two
        (`SimulatedExperiments`): a shard indexes what one shard did here, and a server of ESDB's 8 vCPUs what this
        server did per core, times 8.
        """, cap, floor.offered(), floor.delayP50Millis(), floor.delayP99Millis(), overload.offered(),
        overload.throughput(), costs.shardRowsPerSecond(), costShards, costs.cores(), costs.serverRowsPerSecond());
    PaperReport.section(report, "stack-calibration", "Real stack: calibration of the simulator", command("calibrate"),
        "Stack: " + setup, csv, table, List.of());
    return measured;
  }

  /** The committed calibration when it was measured on shards of this setup's capacity; else the configured one. */
  private Calibration readCalibration() throws IOException {
    Path csv = output.dir().resolve("stack-calibration.csv");
    Map<String, Double> measured = ExperimentOutput.firstNumericRow(csv);
    if (Objects.equals(measured.get("configured_capacity"), setup.shardCapacity())) {
      return new Calibration(measured.get("throughput_heavy"), measured.get("delay_p50_light_ms"));
    }
    System.out.println("no calibration of shards of " + setup.shardCapacity() + " changes/s in " + csv
        + ": the simulator takes that capacity and no pipeline delay (--experiment calibrate measures them)");
    return new Calibration(setup.shardCapacity(), 0);
  }

  /** Fig. 10: θ = 1, the generating rate from half the shards' capacity to above it. */
  void rate() throws Exception {
    List<Pair> pairs = new ArrayList<>();
    for (double fraction : setup.rateFractions()) {
      pairs.addAll(runPoint(1.0, fraction * setup.clusterCapacity(), false));
    }
    Path csv = output.csv("stack-rate", header(), rows(pairs));
    List<Path> charts = List.of(
        output.lineChart("stack-rate-throughput", "Real stack: rows searchable a second against the generating rate"
            + " (θ = 1)", "generating rate (rows/s)", "throughput (rows/s)", lines(pairs, Pair::rate,
            ReplayPoint::throughput, SimulationResult::throughput), false),
        output.lineChart("stack-rate-delay", "Real stack: write-to-searchable delay p99 against the generating rate",
            "generating rate (rows/s)", "delay p99 (ms, log)", lines(pairs, Pair::rate,
            ReplayPoint::delayP99Millis, r -> r.delayP99Millis() + calibration.delayFloorMillis()), true));
    PaperReport.section(report, "stack-rate", "Real stack: write throughput and delay against the generating rate"
        + " [ESDB fig. 10]", command("rate"), "Stack: " + setup, csv, table(pairs), charts);
  }

  /** Fig. 11 and 16: θ from 0 to 2 at 60% of the shards' capacity, and the hot and small tenants' queries. */
  void theta() throws Exception {
    List<Pair> pairs = new ArrayList<>();
    for (double theta : setup.thetas()) {
      pairs.addAll(runPoint(theta, 0.6 * setup.clusterCapacity(), true));
    }
    Path csv = output.csv("stack-theta", header(), rows(pairs));
    List<Path> charts = List.of(
        output.lineChart("stack-theta-throughput", "Real stack: rows searchable a second against skew (60% of"
            + " capacity)", "θ", "throughput (rows/s)", lines(pairs, Pair::theta, ReplayPoint::throughput,
            SimulationResult::throughput), false),
        output.lineChart("stack-theta-delay", "Real stack: write-to-searchable delay p99 against skew", "θ",
            "delay p99 (ms, log)", lines(pairs, Pair::theta, ReplayPoint::delayP99Millis,
            r -> r.delayP99Millis() + calibration.delayFloorMillis()), true));
    PaperReport.section(report, "stack-theta", "Real stack: write throughput and delay against the skew θ [ESDB fig."
        + " 11]", command("theta"), "Stack: " + setup, csv, table(pairs), charts);
    spreadSection(pairs, csv);
    queriesSection(pairs);
  }

  /** Figs. 12 and 13d from the θ points: how evenly each policy spread the rows over shards and servers. */
  private void spreadSection(List<Pair> pairs, Path csv) throws IOException {
    StringBuilder table = new StringBuilder("| policy | θ | per-shard throughput, std / mean | per-server | largest"
        + " shard / smallest | simulated: per shard, per server, largest / smallest |\n|---|---:|---:|---:|---:|---:|\n");
    for (Pair pair : pairs) {
      ShardSpread real = pair.real().spread();
      SimulationResult s = pair.simulated();
      table.append(String.format(Locale.ROOT, "| %s | %.1f | %.2f | %.2f | %.1f | %.2f, %.2f, %.1f |%n",
          pair.real().policy(), pair.theta(), real.shardThroughputSpread(), real.serverThroughputSpread(),
          real.shardSizeMaxOverMin(), s.shardThroughputSpread(), s.serverThroughputSpread(),
          s.shardSizeMaxOverMin()));
    }
    table.append("\nFrom the primaries' document counts (their Stats calls): throughput is each shard's rows indexed"
        + " between the warm-up's end and the replay's end, a server's the sum of its primaries'; sizes are the"
        + " replay's rows on each shard once the grace period is over (an empty shard counts as one row).\n");
    List<Path> charts = List.of(
        output.lineChart("stack-theta-spread", "Real stack: per-shard write throughput, std / mean, against skew",
            "θ", "std / mean", lines(pairs, Pair::theta, r -> r.spread().shardThroughputSpread(),
                SimulationResult::shardThroughputSpread), false),
        output.lineChart("stack-theta-shard-size", "Real stack: largest shard over smallest against skew", "θ",
            "largest / smallest (log)", lines(pairs, Pair::theta, r -> r.spread().shardSizeMaxOverMin(),
                SimulationResult::shardSizeMaxOverMin), true));
    PaperReport.section(report, "stack-spread", "Real stack: load spread over shards and servers, shard sizes"
        + " [ESDB figs. 12 and 13d]", command("theta"), "Stack: " + setup, csv, table.toString(), charts);
  }

  /**
   * Fig. 14: θ = 1.5 at 60% of the shards' capacity while a new group of hot tenants arrives at a third and at two
   * thirds of the replay; rows searchable each second as a mean over the 10 s up to it (a refresh makes a second's
   * rows appear in bursts), real and simulated alike, and the time from each arrival until that keeps within 5% of
   * the rate. θ is 1.5, not ESDB's 1: over 2,000 tenants and 16 shards θ = 1 leaves the hottest shard only about 12%
   * over its capacity, within the refreshes' noise, while θ = 1.5 overloads the hottest tenants' shards several
   * times over, as θ = 1 does at ESDB's scale (its hottest tenant is worth 25 shards).
   */
  void adaptivity() throws Exception {
    double seconds = setup.adaptivitySeconds();
    double rate = 0.6 * setup.clusterCapacity();
    double[] arrivals = {seconds / 3, 2 * seconds / 3};
    TraceSpec spec = new TraceSpec(seconds, rate, 1, 0, ADAPTIVITY_THETA, setup.tenants(), 0, arrivals, SEED);
    Path trace = trace("adaptivity", spec);
    // The trailing mean of the replay's last seconds takes in the dip as it ends: recovery is judged before them.
    double judgedUntil = seconds - SMOOTHING;
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    List<List<Object>> rows = new ArrayList<>();
    StringBuilder table = new StringBuilder("| policy | recovery after 1st arrival | after 2nd | rules | delay p50 /"
        + " p99 (ms) |\n|---|---:|---:|---:|---:|\n");
    for (String policy : setup.policies()) {
      ReplayPoint real;
      try (EvenkeelPeer stack = startStack("adaptivity-" + policy.replace(':', '-'), policy)) {
        real = ReplayPoint.measure(policy, spec, trace, stack, setup.withWarmup(0));
      }
      print("adaptivity, " + policy, real);
      double[] smoothed = trailingMean(real.timeline(), SMOOTHING);
      addTimeline(lines, rows, policy, smoothed);
      table.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %,.0f / %,.0f |%n", policy,
          SimulatedExperiments.recovery(smoothed, rate, arrivals[0], arrivals[1]),
          SimulatedExperiments.recovery(smoothed, rate, arrivals[1], judgedUntil), real.rules(), real.delayP50Millis(),
          real.delayP99Millis()));
    }
    for (String policy : List.of("dynamic", "logstore")) {
      Scenario scenario = scenario(ADAPTIVITY_THETA, rate).withDuration(seconds, 0).withHotspotArrivals(arrivals);
      SimulationResult simulated = new Simulation(scenario).run(policy);
      double[] smoothed = trailingMean(simulated.timeline(), SMOOTHING);
      addTimeline(lines, rows, policy + " (simulated)", smoothed);
      table.append(String.format(Locale.ROOT, "| %s (simulated) | %s | %s | %d | %,.0f / %,.0f |%n", policy,
          SimulatedExperiments.recovery(smoothed, rate, arrivals[0], arrivals[1]),
          SimulatedExperiments.recovery(smoothed, rate, arrivals[1], judgedUntil), simulated.rules(),
          simulated.delayP50Millis() + calibration.delayFloorMillis(),
          simulated.delayP99Millis() + calibration.delayFloorMillis()));
    }
    Path csv = output.csv("stack-adaptivity", List.of("policy", "second", "searchable_rows_per_s"), rows);
    Path chart = output.lineChart("stack-adaptivity", String.format(Locale.ROOT, "Real stack, θ = %.1f: rows"
        + " searchable a second (%d s mean) while hot groups arrive (at %.0f s and %.0f s)", ADAPTIVITY_THETA,
        SMOOTHING, arrivals[0], arrivals[1]), "seconds",
        "rows/s", lines, false);
    PaperReport.section(report, "stack-adaptivity", "Real stack: adaptivity while hotspot groups arrive [ESDB fig."
        + " 14]", command("adaptivity"), "Stack: " + setup + "; trace: " + spec, csv, table.toString(),
        List.of(chart));
  }

  private static void addTimeline(Map<String, List<double[]>> lines, List<List<Object>> rows, String name,
      double[] timeline) {
    List<double[]> points = new ArrayList<>();
    for (int second = 0; second < timeline.length; second++) {
      points.add(new double[] {second, timeline[second]});
      rows.add(List.of(name, second, timeline[second]));
    }
    lines.put(name, points);
  }

  /** Each second's mean over the {@code width} seconds up to and including it (fewer at the start). */
  static double[] trailingMean(double[] timeline, int width) {
    double[] means = new double[timeline.length];
    for (int second = 0; second < timeline.length; second++) {
      means[second] = Arrays.stream(timeline, Math.max(0, second + 1 - width), second + 1).average().orElse(0);
    }
    return means;
  }

  /**
   * A point: the trace's θ and rate, the real run, its simulated twin, and (θ
   * points) the tenant queries after it.
   */
  record Pair(double theta, double rate, ReplayPoint real, SimulationResult simulated,
      List<TenantQueries.Group> queries) {}

  private List<Pair> runPoint(double theta, double rate, boolean queries) throws Exception {
    TraceSpec spec = new TraceSpec(setup.warmupSeconds() + setup.measureSeconds(), rate, 1, 0, theta,
        setup.tenants(), 0, new double[0], SEED);
    String name = String.format(Locale.ROOT, "theta-%.1f-rate-%.0f", theta, rate);
    Path trace = trace(name, spec);
    List<Pair> pairs = new ArrayList<>();
    for (String policy : setup.policies()) {
      String label = String.format(Locale.ROOT, "θ %.1f, %,.0f rows/s, %s", theta, rate, policy);
      try (EvenkeelPeer stack = startStack(name + "-" + policy.replace(':', '-'), policy)) {
        ReplayPoint real = ReplayPoint.measure(policy, spec, trace, stack, setup);
        print(label, real);
        List<TenantQueries.Group> groups = queries ? TenantQueries.measure(stack, spec) : List.of();
        groups.forEach(g -> System.out.printf(Locale.ROOT, "  %s: aggregate p50 %.1f ms, newest 20 p50 %.1f ms,"
            + " %.0f queries/s, fan-out %.1f%n", g.name(), g.aggregateP50Millis(), g.newestP50Millis(),
            g.queriesPerSecond(), g.fanOut()));
        pairs.add(new Pair(theta, rate, real, simulate(SIMULATED.get(policy), theta, rate), groups));
      }
    }
    return pairs;
  }

  /** The simulator on this stack's cluster, calibrated: the measured shard capacity, no server limit. */
  private SimulationResult simulate(String policy, double theta, double rate) {
    return new Simulation(scenario(theta, rate)).run(policy);
  }

  private Scenario scenario(double theta, double rate) {
    return new Scenario(setup.servers(), setup.shards(), setup.tenants(), theta, calibration.shardCapacity(), 0, rate,
        1, 0, new double[0], setup.warmupSeconds() + setup.measureSeconds(), setup.warmupSeconds(), 50, 10, 10, 0.25,
        8, SEED);
  }

  private void queriesSection(List<Pair> pairs) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    StringBuilder table = new StringBuilder("| policy | θ | group | aggregate p50 (ms) | newest 20 p50 (ms) |"
        + " queries/s (one client: 1,000 / mean ms) | shards visited |\n|---|---:|---|---:|---:|---:|---:|\n");
    Map<String, List<double[]>> qpsByGroup = new LinkedHashMap<>();
    for (Pair pair : pairs) {
      for (TenantQueries.Group group : pair.queries()) {
        ReplayPoint real = pair.real();
        rows.add(List.of(real.policy(), real.spec().theta(), group.name(), group.aggregateP50Millis(),
            group.newestP50Millis(), group.queriesPerSecond(), group.fanOut()));
        table.append(String.format(Locale.ROOT, "| %s | %.1f | %s | %.1f | %.1f | %.0f | %.1f |%n", real.policy(),
            real.spec().theta(), group.name(), group.aggregateP50Millis(), group.newestP50Millis(),
            group.queriesPerSecond(), group.fanOut()));
        qpsByGroup.computeIfAbsent(real.policy() + ", " + group.name(), k -> new ArrayList<>())
            .add(new double[] {real.spec().theta(), group.queriesPerSecond()});
      }
    }
    Path csv = output.csv("stack-queries", List.of("policy", "theta", "group", "aggregate_p50_ms", "newest_p50_ms",
        "queries_per_second", "fanout"), rows);
    Path chart = output.lineChart("stack-queries", "Real stack: one client's queries a second after each θ replay",
        "θ", "queries/s", qpsByGroup, false);
    table.append("\nQueries, each after the replay's grace period (a policy that fell behind is still indexing its"
        + " backlog meanwhile): `").append(TenantQueries.AGGREGATE).append("` and `").append(TenantQueries.NEWEST)
        .append("`; the hot group is the trace's ten hottest tenants, the small group popularity ranks 100, 110, ..."
            + " 190.\n");
    PaperReport.section(report, "stack-queries", "Real stack: queries of the hottest and of small tenants [ESDB fig."
        + " 16]", command("theta"), "Stack: " + setup, csv, table.toString(), List.of(chart));
  }

  /** A fresh stack under {@code policy}, after {@link StackSetup#jitWarmupSeconds} of even, unmeasured traffic. */
  private EvenkeelPeer startStack(String name, String policy) throws Exception {
    Path dataDir = work.resolve("stack-" + name);
    IOUtils.rm(dataDir);
    EvenkeelPeer stack = EvenkeelPeer.start(repo, dataDir, setup.localArgs(policy));
    if (setup.jitWarmupSeconds() > 0) {
      TraceSpec even = new TraceSpec(setup.jitWarmupSeconds(), 0.5 * setup.clusterCapacity(), 1, 0, 0,
          setup.tenants(), 0, new double[0], SEED + 1);
      try {
        ReplayPoint.measure(policy, even, trace("jit-warmup", even), stack, setup);
      } catch (Exception e) {
        stack.close();
        throw e;
      }
    }
    return stack;
  }

  /** The trace of {@code spec}, written once into the work directory (its name says the spec, so a reused one fits). */
  private Path trace(String name, TraceSpec spec) throws IOException {
    Path file = work.resolve(String.format("%s-%08x.avro", name, spec.toString().hashCode()));
    if (!Files.exists(file)) {
      Path partial = work.resolve(file.getFileName() + ".partial");
      TraceGenerator.write(spec, partial, progress -> {});
      Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
    }
    return file;
  }

  private static void print(String label, ReplayPoint point) {
    System.out.printf(Locale.ROOT, "%-34s offered %,7.0f rows/s  searchable %,7.0f rows/s (%5.1f%%)  delay p50 %,7.0f"
            + " ms  p99 %,8.0f ms  (%d probes, %d unseen)  rules %d%n", label, point.offered(), point.throughput(),
        100 * point.served(), point.delayP50Millis(), point.delayP99Millis(), point.probes(), point.unseen(),
        point.rules());
  }

  private String command(String which) {
    return "java -cp benchmarks/target/benchmarks.jar " + getClass().getName() + " --experiment " + which
        + " --scale " + scale;
  }

  /** Real lines per policy, and the simulator's beside them, dashed. */
  private static Map<String, List<double[]>> lines(List<Pair> pairs, ToDoubleFunction<Pair> x,
      ToDoubleFunction<ReplayPoint> real, ToDoubleFunction<SimulationResult> simulated) {
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    for (Pair pair : pairs) {
      lines.computeIfAbsent(pair.real().policy(), k -> new ArrayList<>())
          .add(new double[] {x.applyAsDouble(pair), Math.max(real.applyAsDouble(pair.real()), 1e-3)});
    }
    for (Pair pair : pairs) {
      lines.computeIfAbsent(pair.real().policy() + " (simulated)", k -> new ArrayList<>())
          .add(new double[] {x.applyAsDouble(pair), Math.max(simulated.applyAsDouble(pair.simulated()), 1e-3)});
    }
    return lines;
  }

  private List<String> header() {
    return List.of("policy", "theta", "rate", "offered", "throughput", "delay_p50_ms", "delay_p99_ms", "probes",
        "unseen", "rules", "shard_throughput_spread", "server_throughput_spread", "shard_size_max_over_min",
        "simulated_policy", "simulated_throughput", "simulated_delay_p50_ms", "simulated_delay_p99_ms",
        "simulated_shard_throughput_spread", "simulated_server_throughput_spread", "simulated_shard_size_max_over_min");
  }

  private List<List<Object>> rows(List<Pair> pairs) {
    List<List<Object>> rows = new ArrayList<>();
    for (Pair pair : pairs) {
      ReplayPoint r = pair.real();
      SimulationResult s = pair.simulated();
      List<Object> row = new ArrayList<>(List.of(r.policy(), pair.theta(), pair.rate(), r.offered(), r.throughput(),
          r.delayP50Millis(), r.delayP99Millis(), r.probes(), r.unseen(), r.rules(), r.spread().shardThroughputSpread(),
          r.spread().serverThroughputSpread(), r.spread().shardSizeMaxOverMin()));
      row.addAll(List.of(s.policy(), s.throughput(), s.delayP50Millis() + calibration.delayFloorMillis(),
          s.delayP99Millis() + calibration.delayFloorMillis(), s.shardThroughputSpread(), s.serverThroughputSpread(),
          s.shardSizeMaxOverMin()));
      rows.add(row);
    }
    return rows;
  }

  /** The points as Markdown, the simulator's beside each, and its error over the real points. */
  private String table(List<Pair> pairs) {
    StringBuilder table = new StringBuilder("| policy | θ | offered (rows/s) | searchable (rows/s) | served | delay p50 /"
        + " p99 (ms) | probes (unseen) | rules | simulated: searchable, delay p50 / p99 |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    List<Double> throughputErrors = new ArrayList<>();
    List<Double> delayRatios = new ArrayList<>();
    for (Pair pair : pairs) {
      SimulationResult s = pair.simulated();
      String simulated = String.format(Locale.ROOT, "%,.0f, %,.0f / %,.0f", s.throughput(),
          s.delayP50Millis() + calibration.delayFloorMillis(), s.delayP99Millis() + calibration.delayFloorMillis());
      ReplayPoint r = pair.real();
      table.append(String.format(Locale.ROOT, "| %s | %.1f | %,.0f | %,.0f | %.1f%% | %,.0f / %,.0f | %d (%d) | %d |"
              + " %s |%n", r.policy(), r.spec().theta(), r.offered(), r.throughput(), 100 * r.served(),
          r.delayP50Millis(), r.delayP99Millis(), r.probes(), r.unseen(), r.rules(), simulated));
      throughputErrors.add(Math.abs(s.throughput() - r.throughput()) / r.throughput());
      delayRatios.add((s.delayP99Millis() + calibration.delayFloorMillis()) / r.delayP99Millis());
    }
    double[] ratios = delayRatios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    table.append(String.format(Locale.ROOT, "%nThe simulator against the real stack over these %d points: throughput"
            + " off by %.1f%% on average (at most %.1f%%); p99 delay simulated / real, median %.2f (from %.2f to"
            + " %.2f). Calibration: shard capacity %,.0f rows/s, pipeline delay %,.0f ms.%n", throughputErrors.size(),
        100 * throughputErrors.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
        100 * throughputErrors.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
        ReplayPoint.quantile(ratios, 0.5), ratios.length == 0 ? Double.NaN : ratios[0],
        ratios.length == 0 ? Double.NaN : ratios[ratios.length - 1], calibration.shardCapacity(),
        calibration.delayFloorMillis()));
    return table.toString();
  }
}
