package io.evenkeel.benchmarks.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Every simulated experiment at the smoke scale, as a user runs it: CSV, PNG and the report's sections. */
class SimulatedExperimentsTest {
  @TempDir Path dir;

  @Test
  void everyExperimentWritesItsDataChartsAndReportSection() throws Exception {
    Path report = dir.resolve("REPORT.md");
    String[] args = {"--scale", "smoke", "--out", dir.resolve("results").toString(), "--report", report.toString()};
    assertThat(new CommandLine(new SimulatedExperiments()).execute(args)).isZero();

    assertThat(Files.readAllLines(dir.resolve("results/rate.csv"))).hasSize(1 + 6 * Simulation.POLICIES.size());
    assertThat(Files.readAllLines(dir.resolve("results/theta.csv"))).hasSize(1 + 5 * Simulation.POLICIES.size());
    assertThat(Files.readAllLines(dir.resolve("results/adaptivity.csv")).get(0)).isEqualTo("policy,second,throughput");
    for (String chart : List.of("rate-throughput", "rate-delay", "theta-throughput", "theta-delay", "theta-spread",
        "theta-shard-size", "adaptivity")) {
      byte[] png = Files.readAllBytes(dir.resolve("results/" + chart + ".png"));
      assertThat(png).as(chart).startsWith(0x89, 'P', 'N', 'G');
    }
    String text = Files.readString(report);
    assertThat(text).startsWith("# Evenkeel against ESDB's evaluation")
        .contains("<!-- begin simulated-rate -->", "<!-- begin simulated-theta -->",
            "<!-- begin simulated-adaptivity -->", "![theta-throughput.png](results/theta-throughput.png)",
            "| dynamic | 1.5 |");

    // One experiment again: its section is replaced, the others kept.
    assertThat(new CommandLine(new SimulatedExperiments()).execute(
        "--experiment", "adaptivity", "--scale", "smoke", "--out", dir.resolve("results").toString(),
        "--report", report.toString())).isZero();
    String again = Files.readString(report);
    assertThat(again.split("<!-- begin simulated-adaptivity -->", -1)).hasSize(2);
    assertThat(again).contains("<!-- begin simulated-rate -->", "<!-- begin simulated-theta -->");
  }
}
