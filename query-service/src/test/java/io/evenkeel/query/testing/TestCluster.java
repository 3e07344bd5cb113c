package io.evenkeel.query.testing;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.embedded.ZooKeeperServer;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.console.Console;
import io.evenkeel.query.frequency.ClusterHotAttributes;
import io.evenkeel.query.frequency.HotAttributePublisher;
import io.evenkeel.query.http.SqlHttpServer;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.StatsRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Shard server processes holding N shards (consecutive ranges split evenly), loaded through a routing policy, and a
 * query service with its HTTP server in this JVM in front of them.
 */
public final class TestCluster implements AutoCloseable {
  /** The cluster's root in ZooKeeper, when it has one. */
  public static final String ZOOKEEPER_ROOT = "/evenkeel/test";

  private final int numShards;
  private final RoutingPolicy policy;
  private final List<ShardServerProcess> servers = new ArrayList<>();
  private final List<int[]> shardsOf = new ArrayList<>();
  private final List<AutoCloseable> services = new ArrayList<>();
  private ZooKeeperServer zookeeper;
  private CuratorFramework client;

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
    return start(dir, policy, serverCount, false, serverArgs);
  }

  /**
   * The same with a ZooKeeper the servers join (each the primary of its shards, no replicas): they follow the
   * cluster's hot attribute list, which services started by {@link #startService(OptimizerSettings, Duration,
   * HotAttributePublisher.Settings)} follow and publish.
   */
  public static TestCluster startWithZooKeeper(Path dir, RoutingPolicy policy, int serverCount,
      String... serverArgs) throws IOException, InterruptedException {
    return start(dir, policy, serverCount, true, serverArgs);
  }

  private static TestCluster start(Path dir, RoutingPolicy policy, int serverCount, boolean withZooKeeper,
      String... serverArgs) throws IOException, InterruptedException {
    TestCluster cluster = new TestCluster(policy.numShards(), policy);
    try {
      if (withZooKeeper) {
        cluster.zookeeper = ZooKeeperServer.start(dir.resolve("zookeeper"), FreePorts.one(),
            dir.resolve("zookeeper.log"), Duration.ofSeconds(30));
        cluster.client = ZooKeeperClients.start(cluster.zookeeper.connectString(), null,
            new ExponentialBackoffRetry(200, 10));
      }
      for (int i = 0; i < serverCount; i++) {
        int first = i * cluster.numShards / serverCount;
        int last = (i + 1) * cluster.numShards / serverCount - 1;
        List<String> args = new ArrayList<>(List.of("--shards", first + "-" + last, "--durability", "interval",
            "--refresh-interval-ms", "200"));
        if (withZooKeeper) {
          args.addAll(List.of("--zookeeper", cluster.zookeeper.connectString(), "--zookeeper-root", ZOOKEEPER_ROOT,
              "--replicas", "0"));
        }
        args.addAll(List.of(serverArgs));
        cluster.servers.add(ShardServerProcess.launch(dir.resolve("server-" + i), args.toArray(String[]::new)));
        cluster.shardsOf.add(new int[] {first, last});
      }
      for (ShardServerProcess server : cluster.servers) {
        server.awaitReady(Duration.ofSeconds(60));
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

  /** The attribute keys server {@code i} indexes in new rows now. */
  public Set<String> hotAttributesOf(int i) {
    return new TreeSet<>(servers.get(i).stub().withDeadlineAfter(5, TimeUnit.SECONDS)
        .stats(StatsRequest.newBuilder().setShard(shardsOf.get(i)[0]).build()).getHotAttributesList());
  }

  /** The live rows on every shard not yet indexed again for the hot attribute keys listed after they were written. */
  public long unindexedRows() {
    long rows = 0;
    for (int i = 0; i < servers.size(); i++) {
      for (int shard = shardsOf.get(i)[0]; shard <= shardsOf.get(i)[1]; shard++) {
        rows += servers.get(i).stub().withDeadlineAfter(5, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getUnindexedRows();
      }
    }
    return rows;
  }

  /** A client of the cluster's ZooKeeper (only with {@link #startWithZooKeeper}). */
  public CuratorFramework zookeeperClient() {
    return client;
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
    return startService(settings, deadline, (ApiKeys) null);
  }

  /** The same, requiring the API keys of {@code keys} (null: none). */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, ApiKeys keys) throws Exception {
    return startService(settings, deadline, keys, SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES);
  }

  /** The same, answering at most {@code maxConcurrentQueries} queries at once. */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, ApiKeys keys,
      int maxConcurrentQueries) throws Exception {
    return serve(newService(settings, deadline), null, keys, maxConcurrentQueries);
  }

  /** The same, serving {@code console}'s views (closed with the cluster) and page. */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, ApiKeys keys, Console console)
      throws Exception {
    services.add(console);
    return serve(newService(settings, deadline), console, keys, SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES);
  }

  /** A service that follows the cluster's hot attribute list and publishes it as {@code hot} says. */
  public SqlClient startService(OptimizerSettings settings, Duration deadline, HotAttributePublisher.Settings hot)
      throws Exception {
    QueryService service = newService(settings, deadline);
    SqlClient client = serve(service, null, null, SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES);
    services.add(0, ClusterHotAttributes.start(service.attributeFrequency(), service::hotAttributes, this.client,
        ZOOKEEPER_ROOT, hot));
    return client;
  }

  /** A service with the defaults but what {@code options} sets (its budgets, its deadline). */
  public SqlClient startService(UnaryOperator<QueryService.Builder> options) throws Exception {
    return serve(options.apply(builder()).build(), null, null, SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES);
  }

  /** A service with the defaults, without HTTP, closed with the cluster. */
  public QueryService startBareService() {
    QueryService service = builder().build();
    services.add(service);
    return service;
  }

  private QueryService newService(OptimizerSettings settings, Duration deadline) {
    return builder().optimizer(settings).deadline(deadline).build();
  }

  private QueryService.Builder builder() {
    return QueryService.builder().placement(placement()).routingPolicy(() -> policy);
  }

  private SqlClient serve(QueryService service, Console console, ApiKeys keys, int maxConcurrentQueries)
      throws Exception {
    SqlHttpServer http = new SqlHttpServer(service, console, keys, null, "127.0.0.1", 0, maxConcurrentQueries);
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
    if (client != null) {
      client.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
