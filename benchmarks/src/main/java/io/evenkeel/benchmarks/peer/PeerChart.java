package io.evenkeel.benchmarks.peer;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.data.category.DefaultCategoryDataset;

/** The run as one PNG: Evenkeel's speed relative to OpenSearch's per figure, with the line where they are equal. */
final class PeerChart {
  private PeerChart() {}

  /** {@code ratios}: figure → Evenkeel's speed over OpenSearch's (above 1: Evenkeel is faster). */
  static void write(Path png, String title, Map<String, Double> ratios) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    ratios.forEach((figure, ratio) -> data.addValue(ratio, "Evenkeel / OpenSearch", figure));
    JFreeChart chart = ChartFactory.createBarChart(title, null, "speed ratio (above 1: Evenkeel faster)", data,
        PlotOrientation.HORIZONTAL, false, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.getRenderer().setSeriesPaint(0, new Color(0x2b, 0x6c, 0xb0));
    double largest = ratios.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
    plot.getRangeAxis().setRange(0, Math.max(1.2, largest * 1.1));
    ValueMarker parity = new ValueMarker(1.0, Color.RED, new BasicStroke(2f));
    parity.setLabel("parity");
    plot.addRangeMarker(parity);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 420);
  }
}
