package io.evenkeel.launcher.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ingest job's metrics as Flink's REST API (behind its web UI) shows them: every operator metric of every vertex
 * of the running job, summed over the vertex's subtasks, by its id ({@code <operator>.<group>...<name>}).
 */
final class FlinkJobMetrics {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String ui;

  FlinkJobMetrics(HttpClient http, String ui) {
    this.http = http;
    this.ui = ui;
  }

  /** Every metric of the running job, summed over subtasks, by id. */
  Map<String, Double> read() throws IOException, InterruptedException {
    String job = get("/jobs/overview").get("jobs").get(0).get("jid").asText();
    Map<String, Double> metrics = new TreeMap<>();
    for (JsonNode vertex : get("/jobs/" + job).get("vertices")) {
      String path = "/jobs/" + job + "/vertices/" + vertex.get("id").asText() + "/subtasks/metrics";
      List<String> ids = new ArrayList<>();
      get(path).forEach(metric -> ids.add(metric.get("id").asText()));
      // A few at a time: the ids are long, and all of them at once would make a long URL.
      for (int from = 0; from < ids.size(); from += 20) {
        String wanted = String.join(",", ids.subList(from, Math.min(ids.size(), from + 20)));
        for (JsonNode value : get(path + "?get=" + URLEncoder.encode(wanted, StandardCharsets.UTF_8))) {
          if (value.has("sum")) {
            metrics.merge(value.get("id").asText(), value.get("sum").asDouble(), Double::sum);
          }
        }
      }
    }
    return metrics;
  }

  /** The sum of the metrics whose id ends with {@code "." + name} (any operator, any group above it). */
  static double sum(Map<String, Double> metrics, String name) {
    return metrics.entrySet().stream().filter(e -> e.getKey().endsWith("." + name) || e.getKey().equals(name))
        .mapToDouble(Map.Entry::getValue).sum();
  }

  /** The metrics whose id matches {@code regex}, by id. */
  static Map<String, Double> matching(Map<String, Double> metrics, String regex) {
    Map<String, Double> matching = new TreeMap<>();
    metrics.forEach((id, value) -> {
      if (id.matches(regex)) {
        matching.put(id, value);
      }
    });
    return matching;
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(ui + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + ": " + response.statusCode() + " " + response.body());
    }
    return JSON.readTree(response.body());
  }
}
