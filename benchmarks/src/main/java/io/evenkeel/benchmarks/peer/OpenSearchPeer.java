package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.KafkaBroker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real OpenSearch 3 node on loopback, or a cluster of several, the peer Evenkeel is measured against: built from
 * Maven Central jars ({@code benchmarks/src/peer/opensearch}, fetched on first use) and run with a JDK 21 or newer,
 * each node in its own process with a throw-away home. Talks to it over its REST API, as a client would: to a cluster's
 * nodes in turn, as OpenSearch's clients spread requests over the hosts they are given.
 */
final class OpenSearchPeer implements AutoCloseable {
  static final String INDEX = "transaction_logs";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
  private static final String NODE_PROGRAM_DIR = "benchmarks/src/peer/opensearch";
  private static final Pattern READY_LINE = Pattern.compile("(?m)^READY \\d+ (.*)$");
  /** The table as OpenSearch maps it: exact types, keywords for exact strings, the title analyzed. */
  private static final String MAPPING = mapping(true);

  private final List<ChildProcess> processes;
  private final List<String> urls;
  private final String version;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final AtomicInteger next = new AtomicInteger();

  private OpenSearchPeer(List<ChildProcess> processes, List<String> urls, String version) {
    this.processes = processes;
    this.urls = urls;
    this.version = version;
  }

  /** Starts {@code nodes} nodes with {@code heap} each in {@code home}: one alone, or a cluster of them. */
  static OpenSearchPeer start(Path repo, Path home, String heap, int nodes) throws IOException, InterruptedException {
    if (nodes == 1) {
      return start(repo, home, heap);
    }
    OpenSearchCluster cluster = OpenSearchCluster.start(repo, home, nodes, heap);
    return new OpenSearchPeer(cluster.nodes(), cluster.urls(), cluster.version());
  }

  /** Starts a node with {@code heap} in {@code home}, fetching its jars first if this checkout has none. */
  static OpenSearchPeer start(Path repo, Path home, String heap) throws IOException, InterruptedException {
    Path lib = jars(repo);
    Path jdk = jdk();
    int[] ports = FreePorts.pick(2);
    int http = ports[0];
    int transport = ports[1];
    Files.createDirectories(home);
    ChildProcess process = ChildProcess.start("opensearch", nodeCommand(repo, lib, jdk, home, heap, http, transport,
        List.of()), home.resolve("node.log"));
    process.awaitReady(READY_TIMEOUT, () -> readyVersion(process).isPresent());
    return new OpenSearchPeer(List.of(process), List.of("http://127.0.0.1:" + http),
        readyVersion(process).orElseThrow());
  }

  /** The OpenSearch jars of this checkout, fetched once with Maven if it has none yet. */
  static Path jars(Path repo) throws IOException, InterruptedException {
    Path peer = repo.resolve(NODE_PROGRAM_DIR);
    Path lib = peer.resolve("target/lib");
    if (!Files.isDirectory(lib)) {
      System.out.println("fetching the OpenSearch jars once (./mvnw -f " + repo.relativize(peer) + "/pom.xml package)");
      Process fetch = new ProcessBuilder(repo.resolve("mvnw").toString(), "-B", "-q", "-f",
          peer.resolve("pom.xml").toString(), "package").inheritIO().start();
      if (fetch.waitFor() != 0) {
        throw new IOException("fetching the OpenSearch jars failed (exit code " + fetch.exitValue() + ")");
      }
    }
    return lib;
  }

  /** The JDK the node runs on: OpenSearch 3 needs 21 or newer. */
  static Path jdk() throws IOException {
    return jdk21().orElseThrow(() -> new IOException("OpenSearch 3 needs a JDK 21 or newer: none found under "
        + "/usr/lib/jvm; set PEER_JAVA_HOME"));
  }

  /**
   * The command line of one node (OpenSearchNode.java) with {@code heap} in {@code home}; {@code clusterArgs} are
   * empty for a node alone, or its name, the seeds' transport ports and the initial cluster managers' names.
   */
  static List<String> nodeCommand(Path repo, Path lib, Path jdk, Path home, String heap, int http, int transport,
      List<String> clusterArgs) {
    // The options OpenSearch's own distribution starts its JVM with (config/jvm.options), as the project's shared
    // peer does: G1 with a larger reserve and an earlier marking cycle, the heap touched at start, Netty without its
    // recycler and direct arenas.
    List<String> command = new ArrayList<>(List.of(jdk.resolve("bin/java").toString(), "-Xms" + heap, "-Xmx" + heap,
        "-XX:+UseG1GC", "-XX:G1ReservePercent=25", "-XX:InitiatingHeapOccupancyPercent=30", "-XX:+AlwaysPreTouch",
        "-Xss1m", "-XX:-OmitStackTraceInFastThrow", "-Dfile.encoding=UTF-8", "-Djna.nosys=true",
        "-Dio.netty.noUnsafe=true", "-Dio.netty.noKeySetOptimization=true",
        "-Dio.netty.recycler.maxCapacityPerThread=0", "-Dio.netty.allocator.numDirectArenas=0",
        "-Dlog4j.shutdownHookEnabled=false", "-Dorg.apache.lucene.store.MMapDirectory.sharedArenaMaxPermits=1",
        "--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector",
        "-Djava.io.tmpdir=" + home, "-Djava.awt.headless=true", "-Dlog4j2.disable.jmx=true"));
    if (feature(jdk) >= 25) {
      command.add("-XX:+UseCompactObjectHeaders");
    }
    command.addAll(List.of("-cp", lib + "/*", repo.resolve(NODE_PROGRAM_DIR).resolve("OpenSearchNode.java").toString(),
        home.toString(), Integer.toString(http), Integer.toString(transport)));
    command.addAll(clusterArgs);
    return command;
  }

  /** What the node's {@code READY} line says it runs, once it printed one. */
  static Optional<String> readyVersion(ChildProcess process) throws IOException {
    Matcher line = READY_LINE.matcher(Files.readString(process.log()));
    return line.find() ? Optional.of(line.group(1)) : Optional.empty();
  }

  /** "OpenSearch 3.9.0 (Lucene 10.5.1) on Java 25...". */
  String version() {
    return version;
  }

  /** Creates the index anew: {@code shards} primaries of {@code replicas} replicas each, refreshed every second. */
  void createIndex(int shards, int replicas) throws IOException, InterruptedException {
    send("DELETE", "/" + INDEX + "?ignore_unavailable=true", null);
    String settings = "{\"settings\": {\"number_of_shards\": " + shards + ", \"number_of_replicas\": " + replicas
        + ", \"refresh_interval\": \"1s\"}, \"mappings\": " + MAPPING + "}";
    send("PUT", "/" + INDEX, settings);
    send("GET", "/_cluster/health/" + INDEX + "?wait_for_status=green&timeout=60s", null);
  }

  /** One {@code _bulk} request; fails if any item failed. */
  void bulk(String body) throws IOException, InterruptedException {
    JsonNode response = JSON.readTree(send("POST", "/_bulk?filter_path=errors,items.*.error", body));
    if (response.path("errors").asBoolean()) {
      throw new IOException("_bulk item errors: " + abbreviate(response.toString()));
    }
  }

  void refresh() throws IOException, InterruptedException {
    send("POST", "/" + INDEX + "/_refresh", null);
  }

  /** A search's hits and the node's own time for it ({@code took}, whole ms). */
  record Answer(int rows, double tookMs) {}

  /**
   * A search routed to {@code tenant}'s shard (null: every shard); its rows are the hits, or for aggregations the
   * innermost buckets (a row of the equivalent GROUP BY).
   */
  Answer search(Long tenant, String body) throws IOException, InterruptedException {
    JsonNode response = JSON.readTree(send("POST", "/" + INDEX + "/_search?"
        + (tenant == null ? "" : "routing=" + tenant + "&") + "filter_path=took,hits.hits._id,aggregations", body));
    int rows = response.has("aggregations") ? leafBuckets(response.get("aggregations"))
        : response.path("hits").path("hits").size();
    return new Answer(rows, response.path("took").asDouble());
  }

  /** The buckets of the innermost aggregations under {@code aggregations}. */
  private static int leafBuckets(JsonNode aggregations) {
    int leaves = 0;
    for (JsonNode aggregation : aggregations) {
      for (JsonNode bucket : aggregation.path("buckets")) {
        int inner = 0;
        boolean nested = false;
        for (JsonNode value : bucket) {
          if (value.has("buckets")) {
            nested = true;
            inner += value.path("buckets").size();
          }
        }
        leaves += nested ? inner : 1;
      }
    }
    return leaves;
  }

  /** Documents in the index (after a refresh). */
  long count() throws IOException, InterruptedException {
    return JSON.readTree(send("GET", "/" + INDEX + "/_count", null)).path("count").asLong();
  }

  /**
   * The mapping of the table: with {@code routingRequired}, a document indexed without a routing value is refused
   * (mandatory for a routing-partitioned index), without it documents may be spread by {@code _id}.
   */
  static String mapping(boolean routingRequired) {
    return "{\"dynamic\": \"strict\", " + (routingRequired ? "\"_routing\": {\"required\": true}, " : "") + """
        "properties": {
          "tenant_id": {"type": "long"}, "row_id": {"type": "long"}, "created_time": {"type": "long"},
          "modified_time": {"type": "long"}, "status": {"type": "integer"}, "buyer_id": {"type": "long"},
          "seller_nick": {"type": "keyword"}, "buyer_nick": {"type": "keyword"}, "title": {"type": "text"},
          "price": {"type": "scaled_float", "scaling_factor": 100}, "quantity": {"type": "integer"},
          "group_id": {"type": "long"}, "attributes": {"type": "keyword"}}}""";
  }

  /** One REST call, to the next node in turn. */
  private String send(String method, String path, String body) throws IOException, InterruptedException {
    return send(http, urls.get(Math.floorMod(next.getAndIncrement(), urls.size())), method, path, body);
  }

  /**
   * One REST call to the node at {@code url}; fails on an HTTP error (with a {@link BusyException} where the node shed
   * the call), except a DELETE of what is not there.
   */
  static String send(HttpClient http, String url, String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofMinutes(2))
        .header("Content-Type", path.startsWith("/_bulk") ? "application/x-ndjson" : "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300 && !(method.equals("DELETE") && response.statusCode() == 404)) {
      String said = method + " " + path + " -> " + response.statusCode() + ": " + abbreviate(response.body());
      throw BusyException.isBusy(response.statusCode()) ? new BusyException(said) : new IOException(said);
    }
    return response.body();
  }

  static String abbreviate(String text) {
    return text.length() <= 2_000 ? text : text.substring(0, 2_000) + "...";
  }

  /** PEER_JAVA_HOME, or the newest JDK 21+ under /usr/lib/jvm (these machines carry Temurin's beside OpenJDK 17). */
  private static Optional<Path> jdk21() throws IOException {
    String configured = System.getenv("PEER_JAVA_HOME");
    if (configured != null) {
      return Optional.of(Path.of(configured));
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return Optional.empty();
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes.filter(home -> Files.isExecutable(home.resolve("bin/java")) && feature(home) >= 21)
          .max(Comparator.comparingInt(OpenSearchPeer::feature));
    }
  }

  /** The JDK's feature release from its {@code release} file (JAVA_VERSION="25.0.3"), or 0. */
  private static int feature(Path home) {
    try {
      Matcher version = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
      return version.find() ? Integer.parseInt(version.group(1)) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (ChildProcess process : processes) {
      process.stop(Duration.ofSeconds(60));
    }
  }
}
