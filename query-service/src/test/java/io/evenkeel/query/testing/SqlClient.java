package io.evenkeel.query.testing;

import com.fasterxml.jackson.databind.DeserializationFeature;
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

/** Talks to the query service over HTTP as a user would. */
public final class SqlClient {
  public static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final int port;
  private final String key;

  public SqlClient(int port) {
    this(port, null);
  }

  private SqlClient(int port, String key) {
    this.port = port;
    this.key = key;
  }

  /** A client of the same service that presents {@code key} ({@code Authorization: Bearer}). */
  public SqlClient withKey(String key) {
    return new SqlClient(port, key);
  }

  public int port() {
    return port;
  }

  /** An HTTP answer: the status and the JSON body. */
  public record Answer(int status, JsonNode body) {}

  public Answer sql(String sql, Object... params) {
    return post(sql, List.of(params), false);
  }

  public Answer post(String sql, List<Object> params, boolean allowPartial) {
    ObjectNode request = JSON.createObjectNode();
    request.put("sql", sql);
    request.set("params", JSON.valueToTree(params));
    if (allowPartial) {
      request.put("allow_partial", true);
    }
    return send(HttpRequest.newBuilder(uri("/sql")).POST(HttpRequest.BodyPublishers.ofString(request.toString())));
  }

  /** {@code sql} with the session time zone {@code timeZone}. */
  public Answer inTimeZone(String sql, String timeZone) {
    ObjectNode request = JSON.createObjectNode();
    request.put("sql", sql);
    request.put("time_zone", timeZone);
    return send(HttpRequest.newBuilder(uri("/sql")).POST(HttpRequest.BodyPublishers.ofString(request.toString())));
  }

  /** The page after the one that answered with {@code cursor}. */
  public Answer next(String cursor) {
    ObjectNode request = JSON.createObjectNode();
    request.put("cursor", cursor);
    return send(HttpRequest.newBuilder(uri("/sql")).POST(HttpRequest.BodyPublishers.ofString(request.toString())));
  }

  public Answer get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  public Answer postRaw(String path, String body) {
    return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private Answer send(HttpRequest.Builder request) {
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    try {
      HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(60)).build(),
          HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), JSON.readTree(response.body()));
    } catch (IOException e) {
      throw new IllegalStateException("query service on port " + port + " did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
