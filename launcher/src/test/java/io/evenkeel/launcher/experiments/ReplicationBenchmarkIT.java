package io.evenkeel.launcher.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.benchmarks.replication.ReplicationBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The replication benchmark [ESDB fig. 15] at a seconds-long scale, so that the command keeps working: one round of
 * each mode on its own {@code bin/evenkeel local} of 2 servers and 2 shards with a replica each, a kill -9 in each;
 * the CSV, chart and report section are written and hold what the stacks did. (In the launcher's tests: it runs
 * {@code bin/evenkeel}, which needs every jar built.)
 */
class ReplicationBenchmarkIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path dir;

  @Test
  void smokeScaleMeasuresBothModesOnRealStacks() throws Exception {
    Path out = dir.resolve("results");
    Path report = dir.resolve("REPORT.md");
    int exit = new CommandLine(new ReplicationBenchmark()).execute("--rows", "2000", "--tenants", "50", "--rounds",
        "1", "--shard-servers", "2", "--shards", "2", "--repo", REPO.toString(), "--out", out.toString(),
        "--report", report.toString());
    assertThat(exit).isZero();

    Path csv;
    try (Stream<Path> files = Files.list(out)) {
      csv = files.filter(f -> f.getFileName().toString().endsWith(".csv")).findFirst().orElseThrow();
    }
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).startsWith("round,mode,direct_rows_per_s");
    assertThat(lines).hasSize(3);
    for (String line : lines.subList(1, 3)) {
      String[] cells = line.split(",");
      assertThat(cells[1]).isIn("physical", "logical");
      assertThat(Double.parseDouble(cells[2])).as("direct rows/s searchable on every copy").isPositive();
      assertThat(Double.parseDouble(cells[5])).as("load --wait rows/s").isPositive();
      // The killed server's shards got a live primary again within the ZooKeeper session timeout and a bit.
      assertThat(Double.parseDouble(cells[9])).as("promotion s").isBetween(0.0, 60.0);
    }
    assertThat(Files.readString(report)).contains("<!-- begin replication -->", "physical / logical");
    try (Stream<Path> files = Files.list(out)) {
      Path png = files.filter(f -> f.getFileName().toString().endsWith(".png")).findFirst().orElseThrow();
      assertThat(Files.readAllBytes(png)).startsWith((byte) 0x89, (byte) 'P', (byte) 'N');
    }
  }
}
