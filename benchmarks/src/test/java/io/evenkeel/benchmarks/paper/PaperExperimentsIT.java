package io.evenkeel.benchmarks.paper;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * ESDB's evaluation at its smoke scale, through the one command that runs it all, so that every part keeps working:
 * the simulator, the optimizer and frequency-index benchmarks, the real-stack experiments (a calibration, one rate
 * point, one θ point with its queries and spread, an adaptivity replay, each on its own {@code bin/evenkeel local}
 * with capped shards; the replication benchmark in {@link PaperReplicationIT}, so that the two run side by side):
 * the CSV files, charts and report sections are written and hold what the stacks did.
 */
class PaperExperimentsIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path dir;

  @Test
  void smokeScaleRunsEveryExperiment() throws Exception {
    Path out = dir.resolve("results");
    Path report = dir.resolve("REPORT.md");
    int exit = new CommandLine(new PaperExperiments()).execute("--scale", "smoke", "--repo", REPO.toString(),
        "--work", dir.resolve("work").toString(), "--out", out.toString(), "--report", report.toString(),
        "--parts", "optimizer,frequency-index,stacks,simulator");
    assertThat(exit).isZero();

    // One tenant at twice a shard's capacity of 100 changes/s: one shard indexes no more than that capacity (how
    // much less depends on how busy the machine is; a smoke scale measures nothing).
    Map<String, String> calibration = csv(out.resolve("stack-calibration.csv")).get(0);
    assertThat(Double.parseDouble(calibration.get("throughput_heavy"))).isBetween(0.0, 120.0);
    assertThat(Double.parseDouble(calibration.get("delay_p50_light_ms"))).isPositive();
    // Uncapped, straight to the primaries: one shard, and all 8 of one server, index far more (the paper-scale
    // simulator's costs).
    assertThat(Double.parseDouble(calibration.get("shard_direct_rows_per_s"))).isGreaterThan(500.0);
    assertThat(Double.parseDouble(calibration.get("server_direct_rows_per_s"))).isGreaterThan(500.0);

    for (String experiment : List.of("stack-rate", "stack-theta")) {
      List<Map<String, String>> rows = csv(out.resolve(experiment + ".csv"));
      assertThat(rows).extracting(row -> row.get("simulated_policy")).containsExactly("logstore");
      for (Map<String, String> real : rows.subList(0, 1)) {
        // Rows searchable a second within a 9 s replay: none yet on a machine busy enough that the pipeline's delay
        // is longer.
        assertThat(Double.parseDouble(real.get("throughput"))).isNotNegative();
        assertThat(Integer.parseInt(real.get("probes"))).isPositive();
        if (Integer.parseInt(real.get("unseen")) < Integer.parseInt(real.get("probes"))) {
          assertThat(Double.parseDouble(real.get("delay_p99_ms")))
              .isGreaterThanOrEqualTo(Double.parseDouble(real.get("delay_p50_ms")));
        }
      }
    }
    // Small tenants stay on one shard under LogStore's routing, and EXPLAIN's route says so.
    List<Map<String, String>> queries = csv(out.resolve("stack-queries.csv"));
    assertThat(queries).extracting(row -> row.get("group")).containsExactly("top 10 tenants", "small tenants");
    assertThat(queries).allSatisfy(row -> assertThat(Double.parseDouble(row.get("queries_per_second"))).isPositive());
    assertThat(Double.parseDouble(queries.get(1).get("fanout"))).isEqualTo(1.0);

    // Searchable rows a second (a 10 s mean) in the adaptivity replay, 12 s at 60% of 400 changes/s, real and
    // simulated: no more than the 4 shards of 100 changes/s index.
    List<Map<String, String>> adaptivity = csv(out.resolve("stack-adaptivity.csv"));
    assertThat(adaptivity).extracting(row -> row.get("policy")).contains("logstore", "dynamic (simulated)",
        "logstore (simulated)");
    double lastMean = adaptivity.stream().filter(row -> row.get("policy").equals("logstore"))
        .mapToDouble(row -> Double.parseDouble(row.get("searchable_rows_per_s"))).reduce((a, b) -> b).orElseThrow();
    assertThat(lastMean).isBetween(0.0, 1.1 * 400);

    // The spread of the θ point [figs. 12, 13d]: from the primaries' counts, a shard-size ratio of at least 1.
    Map<String, String> theta = csv(out.resolve("stack-theta.csv")).get(0);
    assertThat(Double.parseDouble(theta.get("shard_throughput_spread"))).isNotNegative();
    assertThat(Double.parseDouble(theta.get("shard_size_max_over_min"))).isGreaterThanOrEqualTo(1.0);

    String markdown = Files.readString(report);
    for (String section : List.of("simulated-rate", "simulated-theta", "simulated-adaptivity", "optimizer",
        "frequency-index", "stack-calibration", "stack-rate", "stack-theta", "stack-spread", "stack-queries",
        "stack-adaptivity")) {
      assertThat(markdown).contains("<!-- begin " + section + " -->", "<!-- end " + section + " -->");
    }
    for (String chart : List.of("rate-throughput", "theta-spread", "adaptivity", "optimizer", "frequency-index",
        "stack-rate-throughput", "stack-rate-delay", "stack-theta-throughput", "stack-theta-delay",
        "stack-theta-spread", "stack-theta-shard-size", "stack-queries", "stack-adaptivity")) {
      assertThat(Files.readAllBytes(out.resolve(chart + ".png"))).as(chart)
          .startsWith((byte) 0x89, (byte) 'P', (byte) 'N');
    }
  }

  /** A CSV file's rows by column name (the experiments quote no cell of these columns). */
  static List<Map<String, String>> csv(Path file) throws Exception {
    List<String> lines = Files.readAllLines(file);
    String[] header = lines.get(0).split(",", -1);
    return lines.stream().skip(1).map(line -> {
      String[] cells = line.split(",", -1);
      return Arrays.stream(header).collect(Collectors.toMap(Function.identity(),
          name -> cells[Arrays.asList(header).indexOf(name)]));
    }).toList();
  }
}
