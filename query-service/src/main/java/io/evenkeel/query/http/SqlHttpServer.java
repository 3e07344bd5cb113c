package io.evenkeel.query.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.expr.ExpressionException;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.query.auth.Access;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.console.Console;
import io.evenkeel.query.console.ConsoleAssets;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.query.result.QueryResult;
import io.evenkeel.query.result.ShardFailure;
import io.evenkeel.query.searchable.SearchableWaits;
import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.change.SourcePosition;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query service's HTTP API (Jetty, no servlet layer):
 *
 * <ul>
 *   <li>{@code POST /sql} {@code {"sql": "...", "params": [...], "allow_partial": false, "time_zone": "+00:00"}}
 *       (the session time zone of date functions, UTC by default) → {@code {"columns",
 *       "rows", "took_ms", "shards": {"total", "succeeded", "failed"}}} ({@code "possibly_stale"} and {@code
 *       "stale_reason"} when the routing rules may be out of date; {@code "cursor"} when a full page of a LIMIT
 *       query may have more rows after it: {@code {"cursor": "..."}} asks for the next page); {@code EXPLAIN SELECT
 *       ...} answers one "plan" column, a row per line.
 *   <li>{@code GET /health} → {@code {"status": "ok"}}.
 *   <li>{@code GET /attributes?top=N} → attribute keys by query count and the N most used ones: the hot list for
 *       frequency-based indexing.
 *   <li>{@code GET /console} (and {@code /}) → the web console's page, which calls the endpoints below with the
 *       key typed into it.
 *   <li>{@code GET /cluster} → the shard servers and every shard's copies with their Stats; {@code GET
 *       /hot-tenants} → the ingest job's newest window summaries with each top tenant's spread now; {@code GET
 *       /rules} → the routing rule list.
 * </ul>
 *
 * Errors are {@code {"status", "error"}} (plus {@code "failures"} per shard for a 504): 400 for invalid or
 * unsupported SQL or a query over a memory budget, 429 (with {@code Retry-After}) when the running queries hold the
 * memory it needs or its tenant runs as many queries as it may, 503 when every query slot is taken, 504 when shards
 * failed or timed out, 404/405/413 for bad requests, 403 for a {@code Host} that is not the service's or an {@code
 * Origin} of another site, 500 for a bug. With API keys every endpoint but {@code /health} needs {@code
 * Authorization: Bearer <key>} (401 without a valid one); a tenant key's statements read only its tenants (403 when
 * one names another), and {@code /attributes}, {@code /cluster}, {@code /hot-tenants}, {@code /rules} and {@code
 * /refresh}, which touch every tenant, are for admin keys. The console's files need no key: they hold no data.
 */
public final class SqlHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqlHttpServer.class);
  private static final int MAX_BODY_BYTES = 1 << 20;
  private static final int MAX_THREADS = 128;
  private static final int MAX_QUEUED_TASKS = 1_024;
  private static final int MAX_CONNECTIONS = 1_024;
  private static final long IDLE_TIMEOUT_MS = 30_000;
  /**
   * How long a refusal for load (429, 503) waits before it is written, holding no thread: a client that ignores
   * Retry-After and asks again at once is paced to 10 requests a second per connection, so a flood of refused
   * requests costs the service (and the machine) little, where answering each at once invites the next at once.
   */
  public static final long REFUSAL_PACE_MS = 100;
  /** Queries answered at once; more get a 503 at once rather than queueing behind slow ones. */
  public static final int DEFAULT_MAX_CONCURRENT_QUERIES = 32;
  /**
   * Decimals in and out exactly: 19.90 stays 19.90, never 19.9 or 1.99E+1. Records (the console's views) go out with
   * their fields in the API's snake_case.
   */
  private static final ObjectMapper JSON = new ObjectMapper(
      JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build())
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
  /** Leaves the connection's stream to the caller, which closes it (the answer's last write) once. */
  private static final ObjectWriter STREAMING = JSON.writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
  /** The console's files load only from here: no inline script, nothing from elsewhere. */
  private static final String CONSOLE_POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

  private final SqlService service;
  private final Console console;
  /** The read-your-writes waits; null without the ingest job's Kafka. */
  private volatile SearchableWaits searchable;
  private final ConsoleAssets assets = new ConsoleAssets();
  private final ApiKeys keys;
  private final int maxConcurrentQueries;
  private final Semaphore running;
  private final Server server;
  private final ServerConnector connector;
  private final String bindHost;
  private volatile ServiceNames names;

  public SqlHttpServer(SqlService service, String host, int port) {
    this(service, null, null, null, host, port, DEFAULT_MAX_CONCURRENT_QUERIES);
  }

  /**
   * With {@code keys} null, every caller may read every tenant (bind loopback, or put something in front); with
   * {@code https} null, plain HTTP (keys then travel in clear text); with {@code console} null, the console's views
   * answer 404.
   */
  public SqlHttpServer(SqlService service, Console console, ApiKeys keys, SslContextFactory.Server https, String host,
      int port, int maxConcurrentQueries) {
    if (maxConcurrentQueries < 1) {
      throw new IllegalArgumentException("--max-concurrent-queries must be at least 1; got: " + maxConcurrentQueries);
    }
    this.service = service;
    this.console = console;
    this.keys = keys;
    this.maxConcurrentQueries = maxConcurrentQueries;
    this.running = new Semaphore(maxConcurrentQueries);
    this.names = ServiceNames.of(host, List.of());
    this.bindHost = host;
    // Bounded: the threads, the work waiting for one, the connections; a request's body is read without a thread.
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 8, 60_000,
        new BlockingArrayQueue<>(MAX_QUEUED_TASKS));
    threads.setName("query-http");
    this.server = new Server(threads);
    this.connector = https == null ? new ServerConnector(server) : new ServerConnector(server, https);
    connector.setHost(host);
    connector.setPort(port);
    connector.setIdleTimeout(IDLE_TIMEOUT_MS);
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        respond(request, response, callback);
        return true;
      }
    });
  }

  /**
   * Besides the names of the address it binds, the host names this service answers to ({@code --allowed-hosts}: the
   * names clients reach it by through a proxy or DNS). Before {@link #start()}.
   */
  /** Serves {@code GET /searchable} with these waits (without, it is a 404). Before {@link #start()}. */
  public void searchable(SearchableWaits waits) {
    this.searchable = waits;
  }

  public void allowHosts(List<String> hosts) {
    this.names = ServiceNames.of(bindHost, hosts);
  }

  /** Starts serving; returns the bound port (useful with port 0). */
  public int start() throws Exception {
    server.start();
    return connector.getLocalPort();
  }

  private void respond(Request request, Response response, Callback callback) {
    if (HttpMethod.GET.is(request.getMethod())) {
      Optional<ConsoleAssets.Asset> asset = assets.find(Request.getPathInContext(request));
      if (asset.isPresent()) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, asset.get().contentType());
        response.getHeaders().put("Content-Security-Policy", CONSOLE_POLICY);
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.write(true, ByteBuffer.wrap(asset.get().bytes()), callback);
        return;
      }
    }
    if (Request.getPathInContext(request).equals("/sql") && HttpMethod.POST.is(request.getMethod())) {
      Access access;
      try {
        access = sqlAccess(request);
      } catch (RuntimeException e) {
        answer(request, response, callback, () -> {
          throw e;
        });
        return;
      }
      BodyReader.read(request, MAX_BODY_BYTES, new BodyReader.Continuation() {
        @Override
        public void body(byte[] bytes) {
          answer(request, response, callback, () -> sql(bytes, access));
        }

        @Override
        public void tooLarge(int maxBytes) {
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
          answer(request, response, callback, () -> {
            throw new HttpError(413, "the request body has more than " + maxBytes + " bytes");
          });
        }

        @Override
        public void tooSlow(long bytesPerSecond) {
          // The answer closes the connection: what the client still sends is not read.
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
          answer(request, response, callback, () -> {
            throw new HttpError(408, "the request body came at " + bytesPerSecond + " bytes/s; at least "
                + BodyReader.MIN_BYTES_PER_SECOND + " are needed");
          });
        }

        @Override
        public void failed(Throwable failure) {
          callback.failed(failure);
        }
      });
      return;
    }
    answer(request, response, callback, () -> {
      checkNames(request);
      return route(request);
    });
  }

  /** The caller's access to {@code POST /sql}, checked before its body is read: a refused caller sends nothing. */
  private Access sqlAccess(Request request) {
    checkNames(request);
    Access access = access(request);
    // A body announced far over the limit is refused at once; one a little over it is read and dropped first
    // (BodyReader), so that its client, still sending, reads the 413 instead of a reset connection.
    long length = request.getLength();
    if (length > BodyReader.MAX_DISCARDED_BYTES) {
      throw new HttpError(413, "the request body has " + length + " bytes; at most " + MAX_BODY_BYTES);
    }
    return access;
  }

  /** What a request gets: {@code work}'s value as JSON, or the error it threw with its status. */
  private interface Work {
    Object run() throws IOException;
  }

  private void answer(Request request, Response response, Callback callback, Work work) {
    int status = 200;
    Object body;
    try {
      body = work.run();
      if (body instanceof Answered answered) {
        status = answered.status();
        body = answered.body();
      }
    } catch (QueryException e) {
      status = e.status();
      body = error(e.status(), e.getMessage(), e.failures());
      if (status == 429 || status == 503) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
      }
    } catch (ExpressionException e) {
      status = 400;
      body = error(400, e.getMessage(), List.of());
    } catch (ApiKeys.TooManyFailures e) {
      status = 429;
      body = error(429, e.getMessage(), List.of());
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
    } catch (ApiKeys.Unauthorized e) {
      status = 401;
      body = error(401, e.getMessage(), List.of());
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
    } catch (HttpError e) {
      status = e.status;
      body = error(e.status, e.getMessage(), List.of());
    } catch (RuntimeException | IOException e) {
      LOG.error("request {} {} failed", request.getMethod(), request.getHttpURI(), e);
      status = 500;
      body = error(500, "internal error: " + e, List.of());
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
    if (status == 429 || status == 503) {
      Object refusal = body;
      server.getScheduler().schedule(() -> server.getThreadPool().execute(() -> write(request, response, callback,
          refusal)), REFUSAL_PACE_MS, TimeUnit.MILLISECONDS);
      return;
    }
    write(request, response, callback, body);
  }

  private static void write(Request request, Response response, Callback callback, Object body) {
    // Written as it is made, straight to the connection: a large answer is never one string or tree in the heap.
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      STREAMING.writeValue(out, body);
    } catch (IOException | RuntimeException e) {
      LOG.warn("writing the answer to {} {} failed: {}", request.getMethod(), request.getHttpURI(), e.toString());
      callback.failed(e);
      return;
    } finally {
      release(body);
    }
    callback.succeeded();
  }

  /** Gives back the memory an answer held while it was written. */
  private static void release(Object body) {
    if (body instanceof AutoCloseable held) {
      try {
        held.close();
      } catch (Exception e) {
        LOG.warn("could not release an answer's memory: {}", e.toString());
      }
    }
  }

  private Object route(Request request) throws IOException {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    switch (path) {
      case "/sql" -> throw new HttpError(405, path + " takes POST, not " + method);
      case "/refresh" -> {
        requireMethod(method, "POST", path);
        if (!access(request).isAdmin()) {
          throw QueryException.forbidden("/refresh makes every tenant's writes searchable: it needs an admin key");
        }
        return admitted(() -> Map.of("shards", service.refresh()));
      }
      case "/health" -> {
        requireMethod(method, "GET", path);
        return Map.of("status", "ok");
      }
      case "/searchable" -> {
        requireMethod(method, "GET", path);
        access(request); // any key: the answer is the ingest job's progress, no tenant's rows
        if (searchable == null) {
          throw new HttpError(404, "/searchable: this service runs without --bootstrap-servers, so it cannot see "
              + "how far the ingest job has written");
        }
        return searchable(request);
      }
      case "/attributes" -> {
        requireMethod(method, "GET", path);
        if (!access(request).isAdmin()) {
          throw QueryException.forbidden("/attributes counts the queries of every tenant: it needs an admin key");
        }
        int top = topParameter(request);
        ObjectNode answer = JSON.createObjectNode();
        answer.set("queries_by_key", JSON.valueToTree(service.attributeFrequency().snapshot()));
        answer.set("hot", JSON.valueToTree(service.attributeFrequency().hottest(top)));
        answer.set("indexed", JSON.valueToTree(new TreeSet<>(service.hotAttributes())));
        return answer;
      }
      case "/cluster", "/hot-tenants", "/rules" -> {
        requireMethod(method, "GET", path);
        if (!access(request).isAdmin()) {
          throw QueryException.forbidden(path + " shows every tenant's shards and rules: it needs an admin key");
        }
        if (console == null) {
          throw new HttpError(404, path + ": this service runs without the console's views");
        }
        return switch (path) {
          case "/cluster" -> Map.of("cluster", console.cluster(), "links", console.links());
          case "/hot-tenants" -> console.hotTenants();
          default -> console.rules();
        };
      }
      default -> throw new HttpError(404, "no endpoint " + method + " " + path
          + "; endpoints are POST /sql, POST /refresh, GET /searchable, GET /health, GET /attributes, GET /cluster, "
          + "GET /hot-tenants,"
          + " GET /rules, and the console at GET /console");
    }
  }

  /** A 403 for a request to a name that is not the service's, or from another site's page. */
  private void checkNames(Request request) {
    String refusal = names.refusal(request.getHeaders().get(HttpHeader.HOST),
        request.getHeaders().get(HttpHeader.ORIGIN));
    if (refusal != null) {
      throw new HttpError(403, refusal);
    }
  }

  /** What the caller may read: everything without keys, else what its key allows (401 without a valid one). */
  private Access access(Request request) {
    if (keys == null) {
      return Access.ALL;
    }
    String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    return keys.authenticate(header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
        ? header.substring(7).strip() : null, Request.getRemoteAddr(request));
  }

  private Object sql(byte[] bytes, Access access) throws IOException {
    String text = new String(bytes, StandardCharsets.UTF_8);
    JsonNode body;
    try {
      body = JSON.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new HttpError(400, "the body must be JSON {\"sql\": \"SELECT ...\", \"params\": [...]}: "
          + e.getOriginalMessage());
    }
    boolean allowPartial = body != null && body.path("allow_partial").asBoolean(false);
    if (body != null && body.isObject() && body.has("cursor") && body.has("sql")) {
      throw new HttpError(400, "a request has \"sql\" or \"cursor\", not both: the cursor names its own statement");
    }
    if (body != null && body.isObject() && body.path("cursor").isTextual()) {
      QueryResult result = admitted(() -> service.next(body.get("cursor").asText(), allowPartial, access));
      return SqlAnswer.of(result, service.holdAnswer(result));
    }
    if (body == null || !body.isObject() || !body.path("sql").isTextual()) {
      throw new HttpError(400, "the body must be a JSON object with a string \"sql\" (or a string \"cursor\" "
          + "alone); got: " + abbreviate(text));
    }
    List<Object> params = params(body.path("params"));
    ZoneId timeZone = timeZone(body.path("time_zone"));
    QueryResult result = admitted(() -> service.execute(body.get("sql").asText(), params, timeZone, allowPartial,
        access));
    return SqlAnswer.of(result, service.holdAnswer(result));
  }

  /** Runs {@code work} in one of the query slots, or answers 503 at once when all are taken. */
  private <T> T admitted(Supplier<T> work) {
    if (!running.tryAcquire()) {
      throw QueryException.busy("the service is running " + maxConcurrentQueries + " queries, as many as it may "
          + "(--max-concurrent-queries); retry shortly");
    }
    try {
      return work.get();
    } finally {
      running.release();
    }
  }

  /** The session time zone a request names ({@code "time_zone": "+08:00"}), or UTC. */
  private static ZoneId timeZone(JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return SessionTimeZone.DEFAULT;
    }
    if (!node.isTextual()) {
      throw new HttpError(400, "\"time_zone\" must be a string such as \"+08:00\" or \"Asia/Shanghai\"; got: "
          + abbreviate(node.toString()));
    }
    try {
      return SessionTimeZone.parse(node.asText());
    } catch (IllegalArgumentException e) {
      throw new HttpError(400, "\"time_zone\": " + abbreviate(e.getMessage()));
    }
  }

  private static List<Object> params(JsonNode node) {
    List<Object> params = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return params;
    }
    if (!node.isArray()) {
      throw new HttpError(400, "\"params\" must be an array of values; got: " + node);
    }
    for (JsonNode value : node) {
      if (value.isNull()) {
        params.add(null);
      } else if (value.isIntegralNumber()) {
        params.add(value.canConvertToLong() ? (Object) value.longValue() : new BigDecimal(value.bigIntegerValue()));
      } else if (value.isNumber()) {
        params.add(value.decimalValue());
      } else if (value.isTextual()) {
        params.add(value.textValue());
      } else if (value.isBoolean()) {
        params.add(value.booleanValue());
      } else {
        throw new HttpError(400, "a parameter must be a number, string, boolean or null; got: " + value);
      }
    }
    return params;
  }

  /**
   * {@code GET /searchable?offsets=0:41,2:17[&topic=T][&timeout_ms=N]}: 200 once every record at or before those
   * offsets is searchable, 202 with the partitions still behind when the timeout passes first. With {@code
   * binlog=FILE:POSITION} or {@code gtid=D-S-N} instead of offsets, the same for the changes of a captured table up
   * to that point of its source's binlog; the 202 then may say how far the CDC runner has published instead.
   */
  private Object searchable(Request request) {
    Fields parameters = Request.extractQueryParameters(request);
    String offsets = parameters.getValue("offsets");
    String binlog = parameters.getValue("binlog");
    String gtid = parameters.getValue("gtid");
    if ((offsets != null ? 1 : 0) + (binlog != null ? 1 : 0) + (gtid != null ? 1 : 0) != 1) {
      throw new HttpError(400, "/searchable needs one of offsets=PARTITION:OFFSET,... (the last offset of your records"
          + " in each partition, as KafkaProducer's RecordMetadata tells), binlog=FILE:POSITION (SHOW MASTER STATUS "
          + "after your commit) or gtid=DOMAIN-SERVER-SEQUENCE (MariaDB's @@last_gtid)");
    }
    Duration timeout = timeoutParameter(parameters.getValue("timeout_ms"));
    SourcePosition position = null;
    try {
      position = binlog != null ? SourcePosition.binlog(binlog) : gtid != null ? SourcePosition.gtids(gtid) : null;
    } catch (IllegalArgumentException e) {
      throw new HttpError(400, e.getMessage());
    }
    SearchableWaits.Answer answer;
    try {
      answer = position != null ? searchable.await(parameters.getValue("topic"), position, timeout)
          : searchable.await(parameters.getValue("topic"), offsets(offsets), timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw QueryException.busy("the service is stopping");
    }
    if (answer.searchable()) {
      return Map.of("searchable", true, "waited_ms", answer.waitedMs());
    }
    if (answer.cdcBehind()) {
      CdcPosition published = answer.cdcPublished();
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("searchable", false);
      body.put("waited_ms", answer.waitedMs());
      body.put("cdc_published_up_to", published == null ? null : SourcePosition.describe(published));
      body.put("cdc_published_ms_ago", published == null ? null
          : Math.max(0, System.currentTimeMillis() - published.getPublishedAt()));
      return new Answered(202, body);
    }
    List<Map<String, Object>> behind = new ArrayList<>();
    answer.behind().forEach(lag -> behind.add(Map.of("partition", lag.partition(), "last_offset", lag.wanted(),
        "written_up_to", lag.next() - 1, "records_behind", lag.records())));
    return new Answered(202, Map.of("searchable", false, "waited_ms", answer.waitedMs(), "records_behind",
        answer.recordsBehind(), "partitions", behind));
  }

  private static Duration timeoutParameter(String text) {
    if (text == null) {
      return SearchableWaits.DEFAULT_TIMEOUT;
    }
    try {
      return Duration.ofMillis(Long.parseLong(text));
    } catch (NumberFormatException e) {
      throw new HttpError(400, "timeout_ms must be an integer; got: " + abbreviate(text));
    }
  }

  /** {@code PARTITION:OFFSET,...}, the highest offset where a partition repeats. */
  private static Map<Integer, Long> offsets(String offsets) {
    Map<Integer, Long> last = new TreeMap<>();
    String[] pairs = offsets.split(",", SearchableWaits.MAX_PARTITIONS + 2);
    if (pairs.length > SearchableWaits.MAX_PARTITIONS) {
      throw new HttpError(400, "/searchable takes at most " + SearchableWaits.MAX_PARTITIONS + " partitions");
    }
    for (String pair : pairs) {
      int colon = pair.indexOf(':');
      try {
        int partition = Integer.parseInt(pair.substring(0, Math.max(colon, 0)).strip());
        long offset = Long.parseLong(pair.substring(colon + 1).strip());
        if (colon < 0 || partition < 0 || offset < 0) {
          throw new NumberFormatException();
        }
        last.merge(partition, offset, Math::max);
      } catch (NumberFormatException e) {
        throw new HttpError(400, "offsets are PARTITION:OFFSET pairs of non-negative integers, comma-separated; got '"
            + abbreviate(pair) + "'");
      }
    }
    return last;
  }
  /** An answer with a status of its own (not 200). */
  private record Answered(int status, Object body) {}

  private static int topParameter(Request request) {
    String top = Request.extractQueryParameters(request).getValue("top");
    try {
      int value = top == null ? 20 : Integer.parseInt(top);
      if (value < 0) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new HttpError(400, "top must be a non-negative integer; got: " + top);
    }
  }

  private static void requireMethod(String method, String expected, String path) {
    if (!expected.equals(method)) {
      throw new HttpError(405, path + " takes " + expected + ", not " + method);
    }
  }

  private static Map<String, Object> error(int status, String message, List<ShardFailure> failures) {
    return failures.isEmpty() ? Map.of("status", status, "error", message)
        : Map.of("status", status, "error", message, "failures", failures);
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  /** A request the API cannot take, with its status. */
  private static final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    HttpError(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("the HTTP server did not stop: " + e, e);
    }
  }
}
