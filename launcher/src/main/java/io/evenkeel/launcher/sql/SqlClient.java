package io.evenkeel.launcher.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A client of the query service's {@code POST /sql}. */
public final class SqlClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The service answered with an error status; the message is its own. */
  public static final class SqlError extends Exception {
    private static final long serialVersionUID = 1L;

    SqlError(String message) {
      super(message);
    }
  }

  private final URI endpoint;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** @param baseUrl e.g. http://127.0.0.1:7704 */
  public SqlClient(String baseUrl) {
    this.endpoint = URI.create(baseUrl.replaceAll("/+$", "") + "/sql");
  }

  public SqlResult query(String sql) throws SqlError, IOException, InterruptedException {
    ObjectNode request = JSON.createObjectNode().put("sql", sql);
    HttpResponse<String> response;
    try {
      response = http.send(HttpRequest.newBuilder(endpoint)
          .header("Content-Type", "application/json")
          .timeout(Duration.ofMinutes(2))
          .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new IOException("no query service at " + endpoint + " (connection refused)", e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new SqlError("error " + response.statusCode() + ": " + errorMessage(response.body()));
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IOException("the query service at " + endpoint + " answered with something other than JSON: "
          + abbreviate(response.body()), e);
    }
    return SqlResult.fromJson(body, response.body());
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
