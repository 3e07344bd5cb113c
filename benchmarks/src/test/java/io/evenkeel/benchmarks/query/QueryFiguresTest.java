package io.evenkeel.benchmarks.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query benchmarks of ESDB's figs. 17 and 18 at a seconds-long scale, so that their commands keep working: both
 * plans (or both shard sets) answer alike (the benchmarks throw otherwise), and the CSV, the chart and the report's
 * section are written.
 */
class QueryFiguresTest {
  @TempDir Path dir;

  @Test
  void optimizerBenchmarkWritesFigure17() throws Exception {
    Path report = dir.resolve("REPORT.md");
    QueryOptimizerBenchmark.main(new String[] {"--rows", "20000", "--queries", "16", "--top", "2", "--shards", "4",
        "--window", "10,100", "--out", dir.toString(), "--report", report.toString()});

    List<String> csv = Files.readAllLines(dir.resolve("optimizer.csv"));
    assertThat(csv.get(0)).isEqualTo("window_percent,columns,plan,queries,mean_ms,p50_ms,p99_ms");
    // Two windows, 3 to 10 columns, two plans.
    assertThat(csv).hasSize(1 + 2 * 8 * 2);
    assertThat(Files.readString(report)).contains("<!-- begin optimizer -->", "Optimizer on and off [ESDB fig. 17]",
        "| 100% | plain |");
    assertThat(Files.readAllBytes(dir.resolve("optimizer.png"))).startsWith((byte) 0x89, (byte) 'P', (byte) 'N');
  }

  @Test
  void frequencyIndexBenchmarkWritesFigure18() throws Exception {
    Path report = dir.resolve("REPORT.md");
    FrequencyIndexBenchmark.main(new String[] {"--rows", "20000", "--queries", "20", "--reindex-rate", "20000",
        "--out", dir.toString(), "--report", report.toString()});

    List<String> csv = Files.readAllLines(dir.resolve("frequency-index.csv"));
    assertThat(csv.get(0)).isEqualTo("quantile,indexed_ms,scan_ms,newly_hot_ms,reindexed_ms");
    assertThat(csv).hasSize(1 + 7);
    assertThat(Files.readString(report)).contains("<!-- begin frequency-index -->",
        "| the hot keys indexed |", "| newly hot: the rows written before it, scanned by the shards |",
        "| newly hot, after the shard server indexed those rows again in the background (");
    assertThat(Files.readAllBytes(dir.resolve("frequency-index.png"))).startsWith((byte) 0x89, (byte) 'P', (byte) 'N');
  }
}
