package io.evenkeel.launcher.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A client of the query service's {@code POST /sql} and {@code POST /refresh}. */
public final class SqlClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The service answered with an error status; the message is its own. */
  public static final class SqlError extends Exception {
    private static final long serialVersionUID = 1L;

    SqlError(String message) {
      super(message);
    }
  }

  private final String baseUrl;
  private final String key;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * @param baseUrl e.g. http://127.0.0.1:7704
   * @param key the API key to present ({@code Authorization: Bearer}), or null
   */
  public SqlClient(String baseUrl, String key) {
    this.baseUrl = baseUrl.replaceAll("/+$", "");
    this.key = key;
  }

  public SqlResult query(String sql) throws SqlError, IOException, InterruptedException {
    String body = post("/sql", JSON.writeValueAsString(JSON.createObjectNode().put("sql", sql)));
    return SqlResult.fromJson(json(body), body);
  }

  /**
   * {@code POST /refresh}: when it returns, every write the shard servers acknowledged before the call is searchable.
   * Returns how many shards that covered.
   */
  public int refresh() throws SqlError, IOException, InterruptedException {
    return json(post("/refresh", "")).path("shards").asInt();
  }

  private String post(String path, String body) throws SqlError, IOException, InterruptedException {
    URI endpoint = URI.create(baseUrl + path);
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/json")
        .timeout(Duration.ofMinutes(2))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new IOException("no query service at " + endpoint + " (connection refused)", e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new SqlError("error " + response.statusCode() + ": " + errorMessage(response.body()));
    }
    return response.body();
  }

  private JsonNode json(String body) throws IOException {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IOException("the query service at " + baseUrl + " answered with something other than JSON: "
          + abbreviate(body), e);
    }
  }

  /** The service's "error" or "message" field when the body is JSON, else the body itself. */
  static String errorMessage(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      for (String field : new String[] {"error", "message"}) {
        if (node != null && node.hasNonNull(field)) {
          return node.get(field).asText();
        }
      }
    } catch (IOException notJson) {
      // The body is plain text: show it as it is.
    }
    return abbreviate(body.strip());
  }

  private static String abbreviate(String text) {
    return text.length() <= 500 ? text : text.substring(0, 497) + "...";
  }
}
