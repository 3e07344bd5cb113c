package io.evenkeel.benchmarks.paper;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The replication part of ESDB's evaluation at its smoke scale, through the command that runs it all ({@code
 * --parts replication}): one round of each mode on 2 servers and 2 shards with a replica each, a kill -9 in each;
 * its CSV file and report section hold what the stacks did.
 */
class PaperReplicationIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path dir;

  @Test
  void smokeScaleRunsTheReplicationBenchmark() throws Exception {
    Path out = dir.resolve("results");
    Path report = dir.resolve("REPORT.md");
    int exit = new CommandLine(new PaperExperiments()).execute("--scale", "smoke", "--repo", REPO.toString(),
        "--out", out.toString(), "--report", report.toString(), "--parts", "replication");
    assertThat(exit).isZero();

    // Replication [fig. 15]: one round of each mode, and the killed server's shards got a live primary again
    // within the ZooKeeper session timeout and a bit.
    Path replication;
    try (Stream<Path> files = Files.list(out)) {
      replication = files.filter(f -> f.getFileName().toString().matches("replication-.*\\.csv")).findFirst()
          .orElseThrow();
    }
    List<Map<String, String>> rounds = PaperExperimentsIT.csv(replication);
    assertThat(rounds).extracting(row -> row.get("mode")).containsExactlyInAnyOrder("physical", "logical");
    for (Map<String, String> round : rounds) {
      assertThat(Double.parseDouble(round.get("direct_rows_per_s"))).as("direct rows/s searchable on every copy")
          .isPositive();
      assertThat(Double.parseDouble(round.get("load_rows_per_s"))).as("load --wait rows/s").isPositive();
      assertThat(Double.parseDouble(round.get("promotion_s"))).as("promotion s").isBetween(0.0, 60.0);
    }
    String markdown = Files.readString(report);
    assertThat(markdown).contains("<!-- begin replication -->", "<!-- end replication -->", "physical / logical");
  }
}
