package io.evenkeel.benchmarks.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The sink's lanes, as a user sees them: on {@code bin/evenkeel local} under plain hashing (nothing else moves the
 * surge away), one tenant surging to 100 times the mean tenant's rate overloads its shard, and the small tenants'
 * new rows, some on that shard, stay searchable within their usual delay once the monitor has seen the surge.
 * Without the lanes they would wait behind the surging tenant's backlog, which grows by hundreds of rows a second.
 */
class SurgeExperimentIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path dir;

  @Test
  void aSurgingTenantLeavesSmallTenantsSearchableWithinTheirUsualDelay() throws Exception {
    Path out = dir.resolve("results");
    int exit = new CommandLine(new SurgeExperiment()).execute("--scale", "smoke", "--repo", REPO.toString(),
        "--work", dir.resolve("work").toString(), "--out", out.toString());
    assertThat(exit).isZero();

    Path csv;
    try (Stream<Path> files = Files.list(out)) {
      csv = files.filter(f -> f.getFileName().toString().endsWith(".csv")).findFirst().orElseThrow();
    }
    List<String> lines = Files.readAllLines(csv);
    List<String> header = List.of(lines.get(0).split(","));
    String[] cells = lines.get(1).split(",");
    Map<String, String> run = IntStream.range(0, header.size()).boxed()
        .collect(Collectors.toMap(header::get, i -> cells[i]));
    assertThat(run.get("lanes")).isEqualTo("true");
    assertThat(Integer.parseInt(run.get("probes_surge"))).isGreaterThan(50);
    assertThat(Integer.parseInt(run.get("unseen_surge"))).isZero();
    double before = Double.parseDouble(run.get("delay_p99_before_ms"));
    double surge = Double.parseDouble(run.get("delay_p99_surge_seen_ms"));
    assertThat(surge).as("small tenants' p99 during the surge, once seen, against %.0f ms before", before)
        .isLessThanOrEqualTo(Math.max(2 * before, before + 1_000));
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files.map(f -> f.getFileName().toString())).anyMatch(f -> f.endsWith(".png"))
          .anyMatch(f -> f.endsWith(".md"));
    }
  }
}
