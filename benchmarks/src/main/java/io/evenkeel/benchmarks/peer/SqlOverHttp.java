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

/**
 * {@code POST /sql} to a query service, as a user's HTTP client sends it. Given several services (they are stateless
 * and answer alike), it asks one until it cannot reach it, then the next, as a client-side list of hosts or a load
 * balancer's health check would.
 */
public final class SqlOverHttp implements SqlEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> services;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  /** The service asked first: the last one that answered. */
  private volatile int current;

  /** The service at {@code baseUrl} ({@code http://host:port}). */
  public SqlOverHttp(String baseUrl) {
    this(List.of(baseUrl));
  }

  /** The services at {@code baseUrls} ({@code http://host:port} each). */
  public SqlOverHttp(List<String> baseUrls) {
    this.services = baseUrls.stream().map(url -> URI.create(url + "/sql")).toList();
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
    HttpResponse<String> response = send(body.toString());
    if (response.statusCode() != 200) {
      String said = "POST /sql -> " + response.statusCode() + ": " + response.body() + "\n" + query + " " + params;
      throw BusyException.isBusy(response.statusCode()) ? new BusyException(said) : new IOException(said);
    }
    return JSON.readTree(response.body());
  }

  /**
   * Sends to the current service, or when it cannot be reached or says it is unavailable (503: stopping, or full) to
   * each next one; a read is safe to ask again. The last service's answer or failure is the caller's.
   */
  private HttpResponse<String> send(String body) throws IOException, InterruptedException {
    int first = current;
    for (int i = 0; ; i++) {
      int service = (first + i) % services.size();
      try {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(services.get(service))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 503 || i == services.size() - 1) {
          current = service;
          return response;
        }
      } catch (IOException e) {
        if (i == services.size() - 1) {
          throw e;
        }
      }
    }
  }
}
