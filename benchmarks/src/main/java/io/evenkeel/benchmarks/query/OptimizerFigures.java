package io.evenkeel.benchmarks.query;

import io.evenkeel.benchmarks.query.QueryOptimizerBenchmark.Sample;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The optimizer benchmark's output as ESDB's fig. 17: mean latency with the optimizer on and off against the number
 * of predicate columns, per created_time window, as CSV, a PNG and the report's section.
 */
final class OptimizerFigures {
  private OptimizerFigures() {}

  static void write(Path out, Path report, String args, String setup, List<Sample> samples) throws IOException {
    ExperimentOutput output = new ExperimentOutput(out);
    Map<Integer, Map<Integer, List<Sample>>> byWindow = new TreeMap<>();
    samples.forEach(s -> byWindow.computeIfAbsent(s.window(), w -> new TreeMap<>())
        .computeIfAbsent(s.columns(), c -> new ArrayList<>()).add(s));
    List<List<Object>> rows = new ArrayList<>();
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    List<Integer> columnCounts = samples.stream().map(Sample::columns).distinct().sorted().toList();
    StringBuilder table = new StringBuilder("| window | plan | mean ms by predicate columns: "
        + columnCounts.stream().map(String::valueOf).collect(Collectors.joining(" | "))
        + " | all | plain / optimized |\n|---:|---|" + "---:|".repeat(columnCounts.size() + 2) + "\n");
    for (var window : byWindow.entrySet()) {
      List<Sample> all = window.getValue().values().stream().flatMap(List::stream).toList();
      for (String plan : List.of("optimized", "plain")) {
        ToDoubleFunction<Sample> ms = plan.equals("optimized") ? Sample::optimizedMs : Sample::plainMs;
        table.append(String.format(Locale.ROOT, "| %d%% | %s |", window.getKey(), plan));
        for (int count : columnCounts) {
          List<Sample> ofCount = window.getValue().getOrDefault(count, List.of());
          if (ofCount.isEmpty()) {
            table.append(" |");
            continue;
          }
          double[] sorted = ofCount.stream().mapToDouble(ms).sorted().toArray();
          double mean = ofCount.stream().mapToDouble(ms).average().orElseThrow();
          rows.add(List.of(window.getKey(), count, plan, sorted.length, mean,
              BenchmarkFigures.percentile(sorted, 0.5), BenchmarkFigures.percentile(sorted, 0.99)));
          lines.computeIfAbsent(String.format(Locale.ROOT, "%s, %d%% window", plan, window.getKey()),
              k -> new ArrayList<>()).add(new double[] {count, mean});
          table.append(String.format(Locale.ROOT, " %.2f |", mean));
        }
        double optimized = all.stream().mapToDouble(Sample::optimizedMs).average().orElseThrow();
        double plain = all.stream().mapToDouble(Sample::plainMs).average().orElseThrow();
        table.append(String.format(Locale.ROOT, " %.2f | %s |%n", plan.equals("optimized") ? optimized : plain,
            plan.equals("optimized") ? "" : String.format(Locale.ROOT, "**%.2f×**", plain / optimized)));
      }
    }
    Path csv = output.csv("optimizer", List.of("window_percent", "columns", "plan", "queries", "mean_ms", "p50_ms",
        "p99_ms"), rows);
    Path chart = output.lineChart("optimizer", "Query latency with the optimizer on and off [ESDB fig. 17]",
        "predicate columns", "mean latency (ms, log)", lines, true);
    PaperReport.section(report, "optimizer", "Optimizer on and off [ESDB fig. 17]",
        ("java -cp benchmarks/target/benchmarks.jar " + QueryOptimizerBenchmark.class.getName() + " " + args).strip(),
        "In process: the query service over local shard servers (gRPC on loopback). " + setup, csv,
        table.toString(), List.of(chart));
  }
}
