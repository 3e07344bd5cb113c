package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** {@code POST /sql} to one query service, as a user's HTTP client sends it. */
public final class SqlOverHttp implements SqlEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI sql;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  /** The service at {@code baseUrl} ({@code http://host:port}). */
  public SqlOverHttp(String baseUrl) {
    this.sql = URI.create(baseUrl + "/sql");
  }

  @Override
  public JsonNode rows(String query, List<Object> params) throws IOException, InterruptedException {
    return answer(query, params).path("rows");
  }

  /**
   * The service's whole JSON answer (rows, took_ms, shards); throws with the answer when it is not 200, a {@link
   * BusyException} when the service shed the query.
   */
  public JsonNode answer(String query, List<Object> params) throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode().put("sql", query);
    params.forEach(body.putArray("params")::addPOJO);
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(sql)
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      String said = "POST /sql -> " + response.statusCode() + ": " + response.body() + "\n" + query + " " + params;
      throw BusyException.isBusy(response.statusCode()) ? new BusyException(said) : new IOException(said);
    }
    return JSON.readTree(response.body());
  }
}
