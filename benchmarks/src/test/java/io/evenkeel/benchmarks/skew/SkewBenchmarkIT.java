package io.evenkeel.benchmarks.skew;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.benchmarks.skew.ScheduledRows.Group;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The skew benchmark's smoke mode, so that its command keeps working: two capped shard servers of the local stack,
 * then a two-node OpenSearch cluster in its three routing choices, under the same skewed rows; every system makes
 * rows searchable, each routing choice visits the shards it should, and the capped nodes were throttled where caps
 * are available.
 */
class SkewBenchmarkIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path out;

  @Test
  void smokeRunMeasuresEverySystemOnCappedNodes() throws Exception {
    SkewBenchmark benchmark = new SkewBenchmark();
    new CommandLine(benchmark).parseArgs("--smoke", "--no-surge", "--repo", REPO.toString(), "--out", out.toString());
    SkewReport report = benchmark.run();

    Map<String, SkewPoint> bySystem = report.points().stream()
        .collect(Collectors.toMap(SkewPoint::system, Function.identity()));
    assertThat(bySystem).containsOnlyKeys("Evenkeel (dynamic)", "OpenSearch by _id", "OpenSearch routing=tenant_id",
        "OpenSearch routing=tenant_id, partition 2");
    for (SkewPoint point : report.points()) {
      assertThat(point.searchable()).as(point.system()).isPositive();
      assertThat(point.delays().get(Group.SMALL).probes()).as(point.system()).isPositive();
      assertThat(point.queries().get(Group.HOT).queries()).as(point.system()).isPositive();
      assertThat(point.cpuSeconds()).as(point.system()).containsKey(SkewRun.CLIENT);
    }
    // Smoke: 4 shards on 2 nodes, a partition of 2.
    assertThat(shards(bySystem.get("OpenSearch by _id"))).isEqualTo(4.0);
    assertThat(shards(bySystem.get("OpenSearch routing=tenant_id"))).isEqualTo(1.0);
    assertThat(shards(bySystem.get("OpenSearch routing=tenant_id, partition 2"))).isEqualTo(2.0);
    assertThat(shards(bySystem.get("Evenkeel (dynamic)"))).isBetween(1.0, 4.0);
    assertThat(bySystem.get("Evenkeel (dynamic)").cpuSeconds()).containsKeys("shard-server.jar", "Kafka");

    String markdown = Files.readString(report.markdown());
    if (report.capped()) {
      assertThat(markdown).contains("capped at 0.50 CPU");
      for (SkewPoint point : report.points()) {
        List<SkewPoint.Node> nodes = point.nodes();
        assertThat(nodes).as(point.system()).hasSize(2);
        // Every node did work under its cap; at most its quota (and the scheduler's slack).
        assertThat(nodes).allSatisfy(node -> assertThat(node.cores()).isBetween(0.0, 0.6));
      }
    }
    assertThat(markdown).contains("## θ = 1").contains("| Evenkeel (dynamic) |");
    byte[] png = Files.readAllBytes(out.resolve(report.markdown().getFileName().toString()
        .replace(".md", "-theta.png")));
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
  }

  private static double shards(SkewPoint point) {
    return point.queries().get(Group.HOT).meanShards();
  }
}
