package io.evenkeel.benchmarks.paper;

import io.evenkeel.benchmarks.experiments.StackExperiments;
import io.evenkeel.benchmarks.query.FrequencyIndexBenchmark;
import io.evenkeel.benchmarks.query.QueryOptimizerBenchmark;
import io.evenkeel.benchmarks.replication.ReplicationBenchmark;
import io.evenkeel.benchmarks.simulator.SimulatedExperiments;
import io.evenkeel.schemas.codec.AvroTrust;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * ESDB's whole evaluation in one command, each part by its own command in turn: the optimizer (fig. 17), the
 * frequency-based index (fig. 18), the real-stack experiments (the calibration, figs. 10, 11, 12, 13d, 14 and 16),
 * the simulator at paper scale with the costs that calibration measured (figs. 10 to 14), and physical against
 * logical replication (fig. 15). Each writes its CSV
 * and PNG files and regenerates its sections of the report.
 */
@Command(name = "paper-experiments", mixinStandardHelpOptions = true,
    description = "Runs every experiment of ESDB's evaluation (figs. 10 to 18), one after another, and regenerates"
        + " their sections of the report.")
public final class PaperExperiments implements Callable<Integer> {
  /** Every part, in the order they run. */
  private static final String ALL_PARTS = "optimizer,frequency-index,stacks,simulator,replication";
  private static final List<String> PARTS = List.of(ALL_PARTS.split(","));

  @Option(names = "--scale", defaultValue = "full",
      description = "full (about 2.5 hours here) or smoke (each part at its test scale: minutes). (default:"
          + " ${DEFAULT-VALUE})")
  String scale;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout whose bin/evenkeel runs.")
  Path repo;

  @Option(names = "--out", description = "Every part's CSV and PNG files go here (default: each part's own,"
      + " benchmarks/results/paper and, for replication, benchmarks/results).")
  Path out;

  @Option(names = "--report", defaultValue = "benchmarks/REPORT.md", description = "The report to update.")
  Path report;

  @Option(names = "--work", description = "The real stacks' traces and data (default: a temporary directory).")
  Path work;

  @Option(names = "--parts", split = ",", defaultValue = ALL_PARTS,
      description = "The parts to run, in this order whatever the order given: optimizer, frequency-index, stacks,"
          + " simulator, replication (default: all).")
  List<String> parts;

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new PaperExperiments()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    boolean smoke = switch (scale) {
      case "full" -> false;
      case "smoke" -> true;
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "--scale is full or smoke");
    };
    for (String part : parts) {
      if (!PARTS.contains(part)) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--parts takes " + PARTS + "; got: " + part);
      }
    }
    String paper = out == null ? "benchmarks/results/paper" : out.toString();
    String results = out == null ? "benchmarks/results" : out.toString();
    List<String> common = List.of("--report", report.toString());

    part("optimizer", "optimizer on and off [fig. 17]", () -> {
      QueryOptimizerBenchmark.main(args(common, smoke
          ? new String[] {"--rows", "20000", "--queries", "16", "--top", "2", "--window", "10,100", "--out", paper}
          : new String[] {"--out", paper}));
      return 0;
    });
    part("frequency-index", "frequency-based index on and off [fig. 18]", () -> {
      FrequencyIndexBenchmark.main(args(common, smoke ? new String[] {"--rows", "20000", "--queries", "20",
          "--reindex-rate", "20000", "--out", paper} : new String[] {"--out", paper}));
      return 0;
    });
    part("stacks", "real stacks [figs. 10, 11, 12, 13d, 14, 16]", () -> {
      List<String> stack = new ArrayList<>(List.of("--scale", smoke ? "smoke" : "full", "--repo", repo.toString(),
          "--out", paper));
      if (work != null) {
        stack.addAll(List.of("--work", work.resolve("stacks").toString()));
      }
      return new CommandLine(new StackExperiments()).execute(args(common, stack.toArray(String[]::new)));
    });
    // After the real stacks: the simulator at paper scale takes the costs their calibration measured.
    part("simulator", "simulator at paper scale [figs. 10-14]", () -> new CommandLine(new SimulatedExperiments())
        .execute(args(common, "--scale", smoke ? "smoke" : "paper", "--out", paper)));
    part("replication", "physical against logical replication [fig. 15]",
        () -> new CommandLine(new ReplicationBenchmark()).execute(args(common, smoke
            ? new String[] {"--rows", "2000", "--tenants", "50", "--rounds", "1", "--shard-servers", "2", "--shards",
                "2", "--repo", repo.toString(), "--out", results}
            : new String[] {"--rows", "200000", "--rounds", "4", "--repo", repo.toString(), "--out", results})));
    System.out.println("report: " + report);
    return 0;
  }

  /** Runs one part, if --parts names it, with a heading; a part that fails stops the run. */
  private void part(String key, String name, Callable<Integer> run) throws Exception {
    if (!parts.contains(key)) {
      return;
    }
    System.out.println("== " + name);
    long started = System.nanoTime();
    int exit = run.call();
    if (exit != 0) {
      throw new IllegalStateException(name + " failed (exit code " + exit + ")");
    }
    System.out.printf("== %s: done in %.0f s%n", name, (System.nanoTime() - started) / 1e9);
  }

  private static String[] args(List<String> common, String... own) {
    List<String> all = new ArrayList<>(List.of(own));
    all.addAll(common);
    return all.toArray(String[]::new);
  }
}
