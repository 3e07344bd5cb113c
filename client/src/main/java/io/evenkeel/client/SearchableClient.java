package io.evenkeel.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Read-your-writes for an application that writes to Evenkeel through Kafka or through a captured MySQL or MariaDB
 * table: asks the query service's {@code GET /searchable} to answer once every change up to a point is searchable.
 *
 * <pre>{@code
 * SearchableClient searchable = SearchableClient.of(URI.create("http://127.0.0.1:7704"), apiKey);
 * ProducedOffsets sent = new ProducedOffsets();
 * producer.send(record, sent);          // for each record
 * producer.flush();
 * searchable.await("transaction-logs", sent, Duration.ofSeconds(10)).orThrow();
 * }</pre>
 *
 * For a captured table, after the commit: {@code searchable.awaitBinlog(null, "binlog.000003:4217", timeout)} (from
 * {@code SHOW MASTER STATUS}) or {@code searchable.awaitGtid(null, "0-1-57", timeout)} (MariaDB's {@code
 * @@last_gtid}); null names the service's --cdc-topic.
 */
public final class SearchableClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Beyond the wait the service is asked for: the answer's own way back. */
  private static final Duration SLACK = Duration.ofSeconds(10);

  /** What the service answered: searchable, or how far behind it was when the wait ended. */
  public record Answer(boolean searchable, long waitedMs, JsonNode body) {
    /** Itself when searchable; else throws {@link NotSearchableException} with the service's account. */
    public Answer orThrow() throws NotSearchableException {
      if (!searchable) {
        throw new NotSearchableException("not searchable after " + waitedMs + " ms: " + body);
      }
      return this;
    }
  }

  /** The wait ended before every change up to the point named was searchable. */
  public static final class NotSearchableException extends Exception {
    NotSearchableException(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final URI service;
  private final String apiKey;

  private SearchableClient(HttpClient http, URI service, String apiKey) {
    this.http = http;
    this.service = service;
    this.apiKey = apiKey;
  }

  /** The query service at {@code service} ({@code http://host:port} or https), with an API key or null. */
  public static SearchableClient of(URI service, String apiKey) {
    return of(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build(), service, apiKey);
  }

  /** As {@link #of(URI, String)}, through {@code http} (a TLS context of its own, a proxy). */
  public static SearchableClient of(HttpClient http, URI service, String apiKey) {
    return new SearchableClient(Objects.requireNonNull(http), Objects.requireNonNull(service), apiKey);
  }

  /** Waits until the records {@code sent} has seen for {@code topic} are searchable, at most {@code timeout}. */
  public Answer await(String topic, ProducedOffsets sent, Duration timeout) throws IOException, InterruptedException {
    if (sent.failure() != null) {
      throw new IOException("a send failed, so its record is in no offset to wait for", sent.failure());
    }
    return await(topic, sent.lastOffsets(topic), timeout);
  }

  /**
   * Waits until the records of {@code topic} (null: the service's ingest topic) at or before {@code lastOffsets}
   * (partition to offset) are searchable, at most {@code timeout}. Nothing to wait for is searchable at once.
   */
  public Answer await(String topic, Map<Integer, Long> lastOffsets, Duration timeout)
      throws IOException, InterruptedException {
    if (lastOffsets.isEmpty()) {
      return new Answer(true, 0, JSON.createObjectNode().put("searchable", true));
    }
    StringJoiner offsets = new StringJoiner(",");
    new TreeMap<>(lastOffsets).forEach((partition, offset) -> offsets.add(partition + ":" + offset));
    return get("offsets=" + offsets, topic, timeout);
  }

  /**
   * Waits until every change of the captured table up to {@code position} ({@code FILE:POSITION}, as {@code SHOW
   * MASTER STATUS} shows it after the commit) is searchable; {@code changeTopic} null: the service's --cdc-topic.
   */
  public Answer awaitBinlog(String changeTopic, String position, Duration timeout)
      throws IOException, InterruptedException {
    return get("binlog=" + encode(position), changeTopic, timeout);
  }

  /** As {@link #awaitBinlog}, up to MariaDB GTIDs ({@code SELECT @@last_gtid} in the committing session). */
  public Answer awaitGtid(String changeTopic, String gtids, Duration timeout)
      throws IOException, InterruptedException {
    return get("gtid=" + encode(gtids), changeTopic, timeout);
  }

  private Answer get(String point, String topic, Duration timeout) throws IOException, InterruptedException {
    String query = point + "&timeout_ms=" + timeout.toMillis() + (topic == null ? "" : "&topic=" + encode(topic));
    HttpRequest.Builder request = HttpRequest.newBuilder(service.resolve("/searchable?" + query))
        .timeout(timeout.plus(SLACK)).GET();
    if (apiKey != null) {
      request.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IOException("GET /searchable answered " + response.statusCode() + " with no JSON: "
          + abbreviate(response.body()), e);
    }
    if (response.statusCode() != 200 && response.statusCode() != 202) {
      // 400: what was named is malformed; 401/403: the key; 404: no Kafka; 429: too many waits at once.
      throw new IOException("GET /searchable answered " + response.statusCode() + ": "
          + body.path("error").asText(abbreviate(response.body())));
    }
    return new Answer(response.statusCode() == 200 && body.path("searchable").asBoolean(),
        body.path("waited_ms").asLong(), body);
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  private static String abbreviate(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
