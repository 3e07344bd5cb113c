package io.evenkeel.benchmarks.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Where an experiment's results go: a CSV of its points, line charts (PNG, JFreeChart), and its section of the
 * report ({@code benchmarks/REPORT.md}), which is regenerated section by section so that each experiment can be run
 * on its own.
 */
public final class ExperimentOutput {
  private static final String SIMULATED = " (simulated)";
  private final Path dir;

  public ExperimentOutput(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  public Path dir() {
    return dir;
  }

  /** Writes {@code name}.csv: a header, then one line a row (numbers in plain notation, no thousands separators). */
  public Path csv(String name, List<String> header, List<List<Object>> rows) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(String.join(",", header));
    for (List<Object> row : rows) {
      lines.add(row.stream().map(ExperimentOutput::cell).collect(Collectors.joining(",")));
    }
    return Files.write(dir.resolve(name + ".csv"), lines);
  }

  /**
   * The first row of a CSV file {@link #csv} wrote with numbers only, by column name (an empty cell is NaN, as
   * written); empty when the file does not exist or holds no row.
   */
  public static Map<String, Double> firstNumericRow(Path csv) throws IOException {
    if (!Files.exists(csv)) {
      return Map.of();
    }
    List<String> lines = Files.readAllLines(csv);
    if (lines.size() < 2) {
      return Map.of();
    }
    String[] header = lines.get(0).split(",");
    String[] values = lines.get(1).split(",");
    Map<String, Double> row = new LinkedHashMap<>();
    for (int i = 0; i < Math.min(header.length, values.length); i++) {
      row.put(header[i], values[i].isEmpty() ? Double.NaN : Double.parseDouble(values[i]));
    }
    return row;
  }

  private static String cell(Object value) {
    if (value instanceof Double number) {
      return Double.isNaN(number) ? "" : String.format(Locale.ROOT, "%.4f", number);
    }
    String text = String.valueOf(value);
    return text.contains(",") || text.contains("\"") ? "\"" + text.replace("\"", "\"\"") + "\"" : text;
  }

  /**
   * Draws {@code name}.png: one line a series, each a list of (x, y) points; a logarithmic y axis when {@code logY}
   * (delays that grow without bound under overload). A series named "X (simulated)" is dashed, in X's colour when
   * there is a series X.
   */
  public Path lineChart(String name, String title, String xLabel, String yLabel, Map<String, List<double[]>> series,
      boolean logY) throws IOException {
    XYSeriesCollection data = new XYSeriesCollection();
    series.forEach((label, points) -> {
      XYSeries line = new XYSeries(label, false);
      points.forEach(point -> line.add(point[0], point[1]));
      data.addSeries(line);
    });
    JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true,
        false, false);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    plot.setRenderer(renderer);
    List<String> names = new ArrayList<>(series.keySet());
    for (int i = 0; i < data.getSeriesCount(); i++) {
      String base = names.get(i).endsWith(SIMULATED) ? names.get(i).substring(0,
          names.get(i).length() - SIMULATED.length()) : null;
      if (base == null) {
        renderer.setSeriesStroke(i, new BasicStroke(2f));
        renderer.lookupSeriesPaint(i); // the real series take the first colours, in order
        continue;
      }
      renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
          new float[] {6f, 4f}, 0f));
      int real = names.indexOf(base);
      if (real >= 0) {
        renderer.setSeriesPaint(i, renderer.lookupSeriesPaint(real));
      }
    }
    if (logY) {
      LogAxis axis = new LogAxis(yLabel);
      axis.setSmallestValue(1e-3);
      plot.setRangeAxis(axis);
    }
    Path png = dir.resolve(name + ".png");
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 420);
    return png;
  }

  /** The machine a figure was measured on, in one line: cores, memory, JVM, OS. */
  public static String machine() {
    long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
    return String.format(Locale.ROOT, "%d cores, %.0f GiB, Java %s (%s), %s %s", Runtime.getRuntime()
        .availableProcessors(), memory / (1024.0 * 1024 * 1024), System.getProperty("java.version"),
        System.getProperty("java.vm.name"), System.getProperty("os.name"), System.getProperty("os.version"));
  }

  /**
   * Replaces the section {@code name} of the report (between {@code <!-- begin name -->} and {@code <!-- end name
   * -->}) with {@code markdown}, or appends it; what comes before the first section is {@code preamble}.
   */
  public static void updateReport(Path report, String preamble, String name, String markdown) throws IOException {
    String begin = "<!-- begin " + name + " -->";
    String end = "<!-- end " + name + " -->";
    String text = preamble.strip() + "\n";
    if (Files.exists(report)) {
      String old = Files.readString(report);
      int sections = old.indexOf("<!-- begin ");
      text += sections < 0 ? "" : "\n" + old.substring(sections);
    }
    String section = begin + "\n" + markdown.strip() + "\n" + end;
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from >= 0 && to > from) {
      text = text.substring(0, from) + section + text.substring(to + end.length());
    } else {
      text = text.stripTrailing() + "\n\n" + section + "\n";
    }
    Files.createDirectories(report.toAbsolutePath().getParent());
    Files.writeString(report, text);
  }
}
