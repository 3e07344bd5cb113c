package io.evenkeel.benchmarks.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The peer benchmark's smoke mode, so that its command keeps working: a real OpenSearch node and then the local stack,
 * each alone, load the same few thousand rows and answer the same tenant queries and cross-tenant analytics with the
 * same row and bucket counts and server-side times within the client's; the table and chart are written.
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
    // Two tenant groups of 20 timed after 5 untimed, and 6 analytics after 5.
    assertThat(result.queriesCompared()).isEqualTo(2 * (20 + 5) + (6 + 5));
    // One repetition: OpenSearch alone, then Evenkeel alone.
    assertThat(result.inOrder()).extracting(PeerBenchmark.SystemRun::system)
        .containsExactly(PeerBenchmark.OPENSEARCH, PeerBenchmark.EVENKEEL);
    PeerBenchmark.SystemRun evenkeel = result.of(PeerBenchmark.EVENKEEL).get(0);
    PeerBenchmark.SystemRun openSearch = result.of(PeerBenchmark.OPENSEARCH).get(0);
    assertThat(evenkeel.cold().rows()).isEqualTo(3_000);
    assertThat(evenkeel.warm().docsPerSecond()).isPositive();
    assertThat(openSearch.warm().docsPerSecond()).isPositive();
    double[] hotMs = evenkeel.clientMs().get(PeerBenchmark.HOT).ms();
    assertThat(hotMs).hasSize(20);
    assertThat(Arrays.stream(hotMs).min().orElseThrow()).isPositive();
    // The servers' own times: none longer than what the client waited.
    for (PeerBenchmark.SystemRun run : result.inOrder()) {
      double[] client = run.clientMs().get(PeerBenchmark.SMALL).ms();
      double[] server = run.serverMs().get(PeerBenchmark.SMALL).ms();
      for (int i = 0; i < client.length; i++) {
        assertThat(server[i]).as("%s query %d", run.system(), i).isBetween(0.0, client[i] + 1);
      }
    }
    for (PeerBenchmark.SystemRun run : result.inOrder()) {
      assertThat(run.clientMs().get(PeerBenchmark.ANALYTICS).ms()).as(run.system()).hasSize(6);
      assertThat(run.firstMs().get(PeerBenchmark.ANALYTICS)).as(run.system()).isPositive();
    }
    assertThat(Files.readString(result.markdown())).contains("| load to searchable, cold, docs/s |")
        .contains("OpenSearch server p50 / p99").contains("The first analytic query after the loads")
        .contains("The tails, in the last repetition of each").contains("Evenkeel's slowest 3 of 20 queries");
    byte[] png = Files.readAllBytes(result.png());
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
  }
}
