package io.evenkeel.launcher.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A client of the query service's {@code POST /sql} and {@code POST /refresh}. */
public final class SqlClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The service answered with an error status; the message is its own. */
  public static final class SqlError extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    SqlError(int status, String message) {
      super("error " + status + ": " + message);
      this.status = status;
    }

    /** The HTTP status the service answered. */
    public int status() {
      return status;
    }

    /**
     * Whether the same request may succeed later unchanged: the service was busy (429, 503) or some shards did not
     * answer in time (504), as while a dead server's copies fail over.
     */
    public boolean transientFailure() {
      return status == 429 || status == 503 || status == 504;
    }
  }

  private final String baseUrl;
  private final String key;
  private final HttpClient http;

  /**
   * @param baseUrl e.g. http://127.0.0.1:7704
   * @param key the API key to present ({@code Authorization: Bearer}), or null
   * @param caCertificate the CA that signed an HTTPS service's certificate (PEM), or null for the JDK's trust store
   */
  public SqlClient(String baseUrl, String key, Path caCertificate) throws IOException {
    this.baseUrl = baseUrl.replaceAll("/+$", "");
    this.key = key;
    this.http = caCertificate == null ? HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
        : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(trusting(caCertificate)).build();
  }

  /** TLS that trusts the certificates {@code caCertificate} (PEM) signed. */
  private static SSLContext trusting(Path caCertificate) throws IOException {
    try (InputStream in = Files.newInputStream(caCertificate)) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot trust " + caCertificate + ": " + e.getMessage(), e);
    }
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
      throw new SqlError(response.statusCode(), errorMessage(response.body()));
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
