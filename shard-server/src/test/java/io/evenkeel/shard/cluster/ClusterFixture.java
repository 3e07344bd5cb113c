package io.evenkeel.shard.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterPlacement;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.embedded.ZooKeeperServer;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.MatchAll;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.testing.TestRows;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A real ZooKeeper, shard-server processes joining its cluster state, and a writer's view of that state (the
 * placement it follows, a client of the servers), closed in reverse order.
 */
final class ClusterFixture implements AutoCloseable {
  static final int BATCH = 500;

  private final Path dir;
  private final String root;
  private final int shards;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final ZooKeeperServer zookeeper;
  final ClusterStateClient cluster;
  final ClusterPlacement placement;
  final ClusterClient clients;

  ClusterFixture(Path dir, String root, int shards) throws Exception {
    this.dir = dir;
    this.root = root;
    this.shards = shards;
    zookeeper = ZooKeeperServer.start(dir.resolve("zookeeper"), freePort(), dir.resolve("zookeeper.log"),
        Duration.ofSeconds(30));
    closing.add(zookeeper);
    CuratorFramework client = ZooKeeperClients.start(zookeeper.connectString(), null,
        new ExponentialBackoffRetry(200, 10));
    closing.add(client);
    cluster = new ClusterStateClient(client, root);
    closing.add(cluster);
    cluster.start();
    placement = new ClusterPlacement(shards, cluster);
    clients = new ClusterClient();
    closing.add(clients);
  }

  static int freePort() throws IOException {
    return FreePorts.one();
  }

  /** A shard server in the cluster (one replica per shard, 4 s sessions, 200 ms refreshes), ready. */
  ShardServerProcess server(String name, int port, String... args) throws Exception {
    return server(name, port, Duration.ofSeconds(4), args);
  }

  /** The same, with ZooKeeper sessions of {@code session}. */
  ShardServerProcess server(String name, int port, Duration session, String... args) throws Exception {
    JavaCommand java = JavaCommand.mainClass(ShardServerProcess.MAIN_CLASS).heap("384m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    List<String> all = new ArrayList<>(List.of("--zookeeper", zookeeper.connectString(), "--zookeeper-root", root,
        "--zookeeper-session-timeout-ms", Long.toString(session.toMillis()), "--replicas", "1",
        "--refresh-interval-ms", "200"));
    all.addAll(List.of(args));
    ShardServerProcess server = ShardServerProcess.launch(name, java, dir.resolve(name), port,
        dir.resolve(name + ".log"), all).awaitReady(Duration.ofSeconds(60));
    closing.add(server);
    return server;
  }

  /** Batch {@code number}: rows number*BATCH.. of shard number % shards. */
  ShardWriteBatch batch(int number) {
    int shard = number % shards;
    List<TransactionLogChange> changes = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      long row = (long) number * BATCH + i;
      changes.add(TestRows.insert(row % 10, row, 1).setTitle("row " + row).build());
    }
    return TestRows.batch(shard, number, changes, false);
  }

  /**
   * Writes {@code batch} to its shard's primary as the cluster state says now, retrying until acknowledged or
   * {@code timeout} passes (a retried batch is harmless: versions); answers whether it was acknowledged.
   */
  boolean write(ShardWriteBatch batch, Duration timeout, Runnable onFailure) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        ShardAddress primary = placement.primaryOf(batch.getShard()).orElseThrow(() ->
            new IllegalStateException("no primary"));
        clients.blockingStub(primary).withDeadlineAfter(10, TimeUnit.SECONDS).write(WriteRequest.newBuilder()
            .setShard(batch.getShard()).setBatch(ByteString.copyFrom(TestRows.BATCHES.encode(batch))).build());
        return true;
      } catch (StatusRuntimeException | IllegalStateException e) {
        onFailure.run();
        if (System.nanoTime() > deadline) {
          return false;
        }
        sleep(100);
      }
    }
  }

  /** The rows {@code shard}'s copy on {@code server} searches, or -1 when it does not answer. */
  long count(ShardAddress server, int shard) {
    try {
      return clients.blockingStub(server).withDeadlineAfter(10, TimeUnit.SECONDS).search(SearchRequest.newBuilder()
          .setShard(shard).setQuery(Query.newBuilder().setTrackTotal(true).setFilter(Filter.newBuilder()
              .setMatchAll(MatchAll.getDefaultInstance()))).build()).getTotal();
    } catch (StatusRuntimeException e) {
      return -1;
    }
  }

  static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }
}
