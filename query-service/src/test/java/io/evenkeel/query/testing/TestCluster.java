package io.evenkeel.query.testing;

import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.http.SqlHttpServer;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shard server processes holding N shards (consecutive ranges split evenly), loaded through a routing policy, and a
 * query service with its HTTP server in this JVM in front of them.
 */
public final class TestCluster implements AutoCloseable {
  private final int numShards;
  private final RoutingPolicy policy;
  private final List<ShardServerProcess> servers = new ArrayList<>();
  private final List<int[]> shardsOf = new ArrayList<>();
  private final List<AutoCloseable> services = new ArrayList<>();

  private TestCluster(int numShards, RoutingPolicy policy) {
    this.numShards = numShards;
    this.policy = policy;
  }

  /**
   * Starts {@code serverCount} servers; server i hosts shards [i * N / count, (i + 1) * N / count). {@code
   * serverArgs} go to every server ({@code --hot-attributes color}).
   */
  public static TestCluster start(Path dir, RoutingPolicy policy, int serverCount, String... serverArgs)
      throws IOException, InterruptedException {
    TestCluster cluster = new TestCluster(policy.numShards(), policy);
    try {
      for (int i = 0; i < serverCount; i++) {
        int first = i * cluster.numShards / serverCount;
        int last = (i + 1) * cluster.numShards / serverCount - 1;
        List<String> args = new ArrayList<>(List.of("--shards", first + "-" + last, "--durability", "interval",
            "--refresh-interval-ms", "200"));
        args.addAll(List.of(serverArgs));
        cluster.servers.add(ShardServerProcess.start(dir.resolve("server-" + i), args.toArray(String[]::new)));
        cluster.shardsOf.add(new int[] {first, last});
      }
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  public ShardServerProcess server(int i) {
    return servers.get(i);
  }

  /** "127.0.0.1:p0=0-3,127.0.0.1:p1=4-7". */
  public String placementSpec() {
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      entries.add("127.0.0.1:" + servers.get(i).port() + "=" + shardsOf.get(i)[0] + "-" + shardsOf.get(i)[1]);
    }
    return String.join(",", entries);
  }

  public ShardPlacement placement() {
    return ShardPlacement.fixed(numShards, placementSpec());
  }

  /** Routes each change to its shard and writes them, acknowledged only once searchable. */
  public void write(List<TransactionLogChange> changes) {
    Map<Integer, List<TransactionLogChange>> byShard = new TreeMap<>();
    for (TransactionLogChange change : changes) {
      byShard.computeIfAbsent(policy.shardFor(change), s -> new ArrayList<>()).add(change);
    }
    byShard.forEach((shard, list) -> {
      ShardServerProcess server = serverOf(shard);
      for (int from = 0; from < list.size(); from += 1_000) {
        server.write(shard, list.subList(from, Math.min(list.size(), from + 1_000)), true);
      }
    });
  }

  private ShardServerProcess serverOf(int shard) {
    for (int i = 0; i < servers.size(); i++) {
      if (shard >= shardsOf.get(i)[0] && shard <= shardsOf.get(i)[1]) {
        return servers.get(i);
      }
    }
    throw new IllegalArgumentException("no server hosts shard " + shard);
  }

  /** A query service over this cluster, served over HTTP on a free port; closed with the cluster. */
  public SqlClient startService(OptimizerSettings settings, Duration deadline) throws Exception {
    return startService(settings, deadline, null);
  }

  /** The same, requiring the API keys of {@code keys} (null: none). */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, ApiKeys keys) throws Exception {
    return startService(settings, deadline, keys, SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES);
  }

  /** The same, answering at most {@code maxConcurrentQueries} queries at once. */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, ApiKeys keys,
      int maxConcurrentQueries) throws Exception {
    QueryService service = QueryService.builder().placement(placement()).routingPolicy(() -> policy)
        .optimizer(settings).deadline(deadline).build();
    SqlHttpServer http = new SqlHttpServer(service, keys, null, "127.0.0.1", 0, maxConcurrentQueries);
    int port = http.start();
    services.add(http);
    services.add(service);
    return new SqlClient(port);
  }

  @Override
  public void close() throws InterruptedException {
    for (AutoCloseable service : services) {
      try {
        service.close();
      } catch (Exception e) {
        System.err.println("closing " + service + ": " + e);
      }
    }
    for (ShardServerProcess server : servers) {
      server.close();
    }
  }
}
