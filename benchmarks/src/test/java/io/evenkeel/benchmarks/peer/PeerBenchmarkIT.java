package io.evenkeel.benchmarks.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The peer benchmark's smoke mode, so that its command keeps working: a real OpenSearch node and the local stack
 * load the same few thousand rows and answer the same queries with the same row counts; the table and chart are
 * written.
 */
class PeerBenchmarkIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path out;

  @Test
  void smokeRunLoadsBothSystemsAndTheirAnswersAgree() throws Exception {
    PeerBenchmark benchmark = new PeerBenchmark();
    new CommandLine(benchmark).parseArgs("--smoke", "--repo", REPO.toString(), "--out", out.toString());
    PeerBenchmark.Result result = benchmark.run();

    assertThat(result.mismatches()).isEmpty();
    assertThat(result.queriesCompared()).isEqualTo(2 * (20 + 5));
    assertThat(result.evenkeel().get("cold").rows()).isEqualTo(3_000);
    assertThat(result.evenkeel().get("warm").docsPerSecond()).isPositive();
    assertThat(result.openSearch().get("warm").docsPerSecond()).isPositive();
    double[] hotMs = result.evenkeelQueries().get("hot tenants (5 largest)").ms();
    assertThat(hotMs).hasSize(20);
    assertThat(Arrays.stream(hotMs).min().orElseThrow()).isPositive();
    assertThat(Files.readString(result.markdown())).contains("| load to searchable, cold, docs/s |");
    byte[] png = Files.readAllBytes(result.png());
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
  }
}
