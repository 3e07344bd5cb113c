package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.FreePorts;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A real OpenSearch 3 cluster of several nodes on loopback, each its own process (the same program and JVM options
 * as {@link OpenSearchPeer}'s single node) with its own ports and home, so that a benchmark can compare how
 * OpenSearch spreads one table over shards on several nodes: by document id, by tenant, or by tenant over a few
 * shards. Every node coordinates requests; this talks REST to the first one.
 */
public final class OpenSearchCluster implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Four JVMs starting at once on two cores take longer than one. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(300);

  /** Where a table's documents go, and so which shards a tenant's search visits. */
  public enum OpenSearchRouting {
    /** By {@code _id}: a tenant's documents on every shard, each search visits all of them. */
    BY_ID,
    /** By tenant ({@code routing=<tenant_id>}): a tenant on one shard, its searches visit that shard alone. */
    BY_TENANT,
    /**
     * By tenant over {@code index.routing_partition_size} shards: a large tenant is not held by a single shard, its
     * searches visit that many.
     */
    TENANT_PARTITIONED;

    /** Whether documents and searches carry {@code routing=<tenant_id>}. */
    boolean byTenant() {
      return this != BY_ID;
    }
  }

  private final List<ChildProcess> nodes;
  private final List<String> urls;
  private final String version;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private OpenSearchCluster(List<ChildProcess> nodes, List<String> urls, String version) {
    this.nodes = nodes;
    this.urls = urls;
    this.version = version;
  }

  /**
   * Starts {@code count} nodes with {@code heap} each, in {@code home/node-1} and on, all at once, and returns once
   * every one serves and the cluster counts them all. The homes must be fresh: the nodes bootstrap a new cluster.
   */
  public static OpenSearchCluster start(Path repo, Path home, int count, String heap)
      throws IOException, InterruptedException {
    if (count < 1) {
      throw new IllegalArgumentException("a cluster needs at least one node, not " + count);
    }
    Path lib = OpenSearchPeer.jars(repo);
    Path jdk = OpenSearchPeer.jdk();
    int[] ports = FreePorts.pick(2 * count);
    List<String> names = IntStream.rangeClosed(1, count).mapToObj(i -> "peer-" + i).toList();
    // Every node is a seed and an initial cluster manager: whichever starts first finds the others.
    String seeds = IntStream.range(0, count).mapToObj(i -> Integer.toString(ports[count + i]))
        .collect(Collectors.joining(","));
    List<ChildProcess> nodes = new ArrayList<>();
    List<String> urls = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        Path nodeHome = home.resolve("node-" + (i + 1));
        Files.createDirectories(nodeHome);
        List<String> command = OpenSearchPeer.nodeCommand(repo, lib, jdk, nodeHome, heap, ports[i], ports[count + i],
            List.of(names.get(i), seeds, String.join(",", names)));
        nodes.add(ChildProcess.start("opensearch-" + (i + 1), command, nodeHome.resolve("node.log")));
        urls.add("http://127.0.0.1:" + ports[i]);
      }
      String version = awaitReady(nodes);
      OpenSearchCluster cluster = new OpenSearchCluster(List.copyOf(nodes), List.copyOf(urls), version);
      JsonNode health = JSON.readTree(cluster.send("GET", "/_cluster/health?wait_for_nodes=" + count
          + "&timeout=120s", null));
      if (health.path("number_of_nodes").asInt() != count) {
        throw new IOException("the cluster counts " + health.path("number_of_nodes") + " nodes, not " + count + ": "
            + health);
      }
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      for (ChildProcess node : nodes) {
        node.kill();
      }
      throw e;
    }
  }

  /** Waits until every node printed its READY line; fails as soon as one exits. Returns what the first one runs. */
  private static String awaitReady(List<ChildProcess> nodes) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      boolean all = true;
      for (ChildProcess node : nodes) {
        if (!node.isAlive()) {
          throw new IOException(node.name() + " exited while starting; " + node.tailReport(40));
        }
        all &= OpenSearchPeer.readyVersion(node).isPresent();
      }
      if (all) {
        return OpenSearchPeer.readyVersion(nodes.get(0)).orElseThrow();
      }
      if (System.nanoTime() > deadline) {
        ChildProcess late = nodes.stream().filter(node -> {
          try {
            return OpenSearchPeer.readyVersion(node).isEmpty();
          } catch (IOException e) {
            return true;
          }
        }).findFirst().orElseThrow();
        throw new IOException(late.name() + " was not ready within " + READY_TIMEOUT.toSeconds() + " s; "
            + late.tailReport(40));
      }
      Thread.sleep(100);
    }
  }

  /** The nodes' processes, in the order of {@link #urls()}. */
  List<ChildProcess> nodes() {
    return nodes;
  }

  /** "OpenSearch 3.9.0 (Lucene 10.5.1) on Java 25...", as the first node reports it. */
  public String version() {
    return version;
  }

  /** The nodes' process ids, in node order: for CPU caps and CPU accounting. */
  public List<Long> pids() {
    return nodes.stream().map(ChildProcess::pid).toList();
  }

  /** The first node's HTTP URL; any node coordinates requests for the whole cluster. */
  String url() {
    return urls.get(0);
  }

  /** Every node's HTTP URL, in node order. */
  List<String> urls() {
    return urls;
  }

  /**
   * Creates {@code index} anew with the table's mapping, {@code shards} primaries of {@code replicas} copies each,
   * refreshed every second, its documents placed by {@code routing} ({@code partitionSize} shards per tenant for
   * {@link OpenSearchRouting#TENANT_PARTITIONED}, ignored otherwise); returns once all its shards are allocated.
   */
  public void createIndex(String index, int shards, int replicas, OpenSearchRouting routing, int partitionSize)
      throws IOException, InterruptedException {
    ObjectNode settings = JSON.createObjectNode().put("number_of_shards", shards).put("number_of_replicas", replicas)
        .put("refresh_interval", "1s");
    if (routing == OpenSearchRouting.TENANT_PARTITIONED) {
      if (partitionSize <= 1 || partitionSize >= shards) {
        throw new IllegalArgumentException("a routing partition spans more than one shard and fewer than all "
            + shards + ", not " + partitionSize);
      }
      settings.put("routing_partition_size", partitionSize);
      // A tenant's partition is partitionSize consecutive routing shards. By default an index has 1024 routing shards
      // (so that it can be split later), 128 per shard for 8 shards: the partition would fall on one or two shards.
      settings.put("number_of_routing_shards", shards);
    }
    send("DELETE", "/" + index + "?ignore_unavailable=true", null);
    send("PUT", "/" + index, "{\"settings\": " + settings + ", \"mappings\": "
        + OpenSearchPeer.mapping(routing.byTenant()) + "}");
    send("GET", "/_cluster/health/" + index + "?wait_for_status=green&timeout=60s", null);
  }

  /**
   * One document of a {@code _bulk} body (action line and source, each ending in a newline) for {@code index}, with
   * id {@code id}, routed by {@code tenant} unless {@code routing} is {@link OpenSearchRouting#BY_ID}.
   */
  public static String bulkLine(String index, OpenSearchRouting routing, String id, long tenant, String source) {
    ObjectNode action = JSON.createObjectNode();
    ObjectNode target = action.putObject("index").put("_index", index).put("_id", id);
    if (routing.byTenant()) {
      target.put("routing", Long.toString(tenant));
    }
    return action + "\n" + source + "\n";
  }

  /** One {@code _bulk} request; fails if any item failed. */
  public void bulk(String body) throws IOException, InterruptedException {
    JsonNode response = JSON.readTree(send("POST", "/_bulk?filter_path=errors,items.*.error", body));
    if (response.path("errors").asBoolean()) {
      throw new IOException("_bulk item errors: " + OpenSearchPeer.abbreviate(response.toString()));
    }
  }

  void refresh(String index) throws IOException, InterruptedException {
    send("POST", "/" + index + "/_refresh", null);
  }

  /** A search's hits, the coordinating node's own time for it ({@code took}, whole ms) and the shards it visited. */
  public record Answer(int rows, double tookMs, int shards) {}

  /** A search of {@code tenant}'s rows: routed to the tenant's shards unless {@code routing} spreads by id. */
  public Answer search(String index, OpenSearchRouting routing, long tenant, String body)
      throws IOException, InterruptedException {
    JsonNode response = JSON.readTree(send("POST", "/" + index + "/_search?"
        + (routing.byTenant() ? "routing=" + tenant + "&" : "") + "filter_path=took,_shards.total,hits.hits._id",
        body));
    return new Answer(response.path("hits").path("hits").size(), response.path("took").asDouble(),
        response.path("_shards").path("total").asInt());
  }

  /** Documents in {@code index} (searchable ones: after a refresh). */
  public long count(String index) throws IOException, InterruptedException {
    return JSON.readTree(send("GET", "/" + index + "/_count", null)).path("count").asLong();
  }

  /**
   * Which of {@code rowIds} a search finds now, over every shard (no routing): a probe of when loaded rows become
   * searchable. At most 10,000 ids (the index's result window), each the id of one row at most (the generator's row
   * ids are unique across tenants).
   */
  public Set<Long> searchable(String index, List<Long> rowIds) throws IOException, InterruptedException {
    if (rowIds.isEmpty()) {
      return Set.of();
    }
    ObjectNode body = JSON.createObjectNode().put("size", rowIds.size()).put("_source", false)
        .put("track_total_hits", false);
    body.putArray("docvalue_fields").add("row_id");
    ArrayNode terms = body.putObject("query").putObject("terms").putArray("row_id");
    for (long rowId : rowIds) {
      terms.add(rowId);
    }
    JsonNode hits = JSON.readTree(send("POST", "/" + index + "/_search?filter_path=hits.hits.fields.row_id",
        body.toString())).path("hits").path("hits");
    Set<Long> found = new HashSet<>();
    for (JsonNode hit : hits) {
      found.add(hit.path("fields").path("row_id").path(0).asLong());
    }
    return found;
  }

  private String send(String method, String path, String body) throws IOException, InterruptedException {
    return OpenSearchPeer.send(http, url(), method, path, body);
  }

  /** Stops every node at once (SIGTERM, then SIGKILL after a minute). */
  @Override
  public void close() throws InterruptedException {
    // One by one, each node's departure would make the others elect a manager or reallocate shards first.
    List<Thread> stopping = new ArrayList<>();
    for (ChildProcess node : nodes) {
      Thread thread = new Thread(() -> {
        try {
          node.stop(Duration.ofSeconds(60));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "stop-" + node.name());
      thread.start();
      stopping.add(thread);
    }
    for (Thread thread : stopping) {
      thread.join();
    }
  }
}
