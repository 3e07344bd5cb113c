package io.evenkeel.benchmarks.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

class RuleCommitLatencyTest {
  @Test
  void measuresEveryRoundAndPrintsPercentilesPerParticipantCount() throws Exception {
    RuleCommitLatency.Result result;
    try (TestingServer zookeeper = new TestingServer(true)) {
      result = RuleCommitLatency.measure(zookeeper.getConnectString(), 3, 20, 2);
    }

    assertThat(result.micros()).hasSize(20).isSorted();
    assertThat(result.percentile(0.5)).isPositive().isLessThanOrEqualTo(result.percentile(0.99));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RuleCommitLatency.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), 20, List.of(result));
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(printed).contains("participants", "p50 ms", "p99 ms").containsPattern("(?m)^3 +\\d+\\.\\d\\d +");
  }
}
