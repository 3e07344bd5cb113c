package io.evenkeel.shard.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.embedded.ZooKeeperServer;
import io.evenkeel.router.client.ClusterClient;
import io.evenkeel.router.cluster.ClusterPlacement;
import io.evenkeel.router.cluster.ClusterStateClient;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.MatchAll;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.testing.TestRows;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shard-server processes and a real ZooKeeper: the first lays out two shards as their primary, the master gives
 * each a replica on the second. The first is killed with -9 while a writer writes; the replicas are promoted, every
 * acknowledged write is searchable on them exactly once, and writes resume. The first comes back with its data
 * directory deleted, rejoins as a replica and copies everything from the new primaries.
 */
class FailoverIT {
  private static final String ROOT = "/evenkeel/failover";
  private static final int SHARDS = 2;
  private static final int BATCH = 500;

  @TempDir Path dir;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private ShardServerProcess server(String name, int port, String zookeeper, String... args) throws Exception {
    JavaCommand java = JavaCommand.mainClass(ShardServerProcess.MAIN_CLASS).heap("384m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    List<String> all = new ArrayList<>(List.of("--zookeeper", zookeeper, "--zookeeper-root", ROOT,
        "--zookeeper-session-timeout-ms", "4000", "--replicas", "1", "--refresh-interval-ms", "200"));
    all.addAll(List.of(args));
    ShardServerProcess server = ShardServerProcess.launch(name, java, dir.resolve(name), port,
        dir.resolve(name + ".log"), all).awaitReady(Duration.ofSeconds(60));
    closing.add(server);
    return server;
  }

  /** Batch {@code number}: rows number*BATCH.. of shard number % SHARDS. */
  private static ShardWriteBatch batch(int number) {
    int shard = number % SHARDS;
    List<TransactionLogChange> changes = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      long row = (long) number * BATCH + i;
      changes.add(TestRows.insert(row % 10, row, 1).setTitle("row " + row).build());
    }
    return TestRows.batch(shard, number, changes, false);
  }

  private static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void aKilledPrimarysReplicaTakesOverWithEveryAcknowledgedWrite() throws Exception {
    ZooKeeperServer zookeeper = ZooKeeperServer.start(dir.resolve("zookeeper"), freePort(),
        dir.resolve("zookeeper.log"), Duration.ofSeconds(30));
    closing.add(zookeeper);
    int firstPort = freePort();
    ShardServerProcess first = server("first", firstPort, zookeeper.connectString(), "--shards", "0-1");
    ShardServerProcess second = server("second", freePort(), zookeeper.connectString());
    String firstAddress = "127.0.0.1:" + firstPort;

    CuratorFramework client = ZooKeeperClients.start(zookeeper.connectString(), null,
        new ExponentialBackoffRetry(200, 10));
    closing.add(client);
    ClusterStateClient cluster = new ClusterStateClient(client, ROOT);
    closing.add(cluster);
    cluster.start();
    ClusterPlacement placement = new ClusterPlacement(SHARDS, cluster);
    ClusterClient shards = new ClusterClient();
    closing.add(shards);
    awaitTrue("every shard has an in-sync replica", Duration.ofSeconds(60), () -> cluster.current().shards().size()
        == SHARDS && cluster.current().shards().values().stream().allMatch(c -> c.getInSync().size() == 1));

    // The writer sends batch after batch, each to its shard's primary as the cluster state says now, retrying a
    // batch until it is acknowledged: a retried batch is harmless (versions), and the count checks it.
    int batches = 120;
    AtomicInteger acknowledged = new AtomicInteger();
    long[] failover = new long[2]; // [first failure nanos, first success after it]
    Thread writer = new Thread(() -> {
      for (int b = 0; b < batches; b++) {
        ShardWriteBatch batch = batch(b);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
          try {
            ShardAddress primary = placement.primaryOf(batch.getShard()).orElseThrow(() ->
                new IllegalStateException("no primary"));
            shards.blockingStub(primary).withDeadlineAfter(10, TimeUnit.SECONDS).write(WriteRequest.newBuilder()
                .setShard(batch.getShard()).setBatch(ByteString.copyFrom(TestRows.BATCHES.encode(batch))).build());
            if (failover[0] != 0 && failover[1] == 0) {
              failover[1] = System.nanoTime();
            }
            break;
          } catch (StatusRuntimeException | IllegalStateException e) {
            if (failover[0] == 0) {
              failover[0] = System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
              return;
            }
            sleep(100);
          }
        }
        acknowledged.incrementAndGet();
      }
    });
    writer.start();
    awaitTrue("half the batches acknowledged", Duration.ofSeconds(60), () -> acknowledged.get() >= batches / 2);
    first.kill();
    long killed = System.nanoTime();
    writer.join(TimeUnit.SECONDS.toMillis(120));
    assertThat(acknowledged.get()).as("every batch acknowledged, by the first or the promoted primaries")
        .isEqualTo(batches);
    for (int shard = 0; shard < SHARDS; shard++) {
      ShardCopies copies = cluster.current().copies(shard).orElseThrow();
      assertThat(copies.getPrimary()).isEqualTo("127.0.0.1:" + second.port());
      // Laid out in term 1, opened from its directory in term 2 (every such open takes a new term), promoted in 3.
      assertThat(copies.getTerm()).isEqualTo(3);
    }
    long writesResumedMs = failover[1] == 0 ? -1 : (failover[1] - killed) / 1_000_000;
    System.out.printf("failover: writes resumed %d ms after kill -9 of the primaries' server (ZooKeeper session "
        + "timeout 4000 ms)%n", writesResumedMs);

    second.stub().refreshShards(RefreshShardsRequest.newBuilder().addShards(0).addShards(1).build());
    assertThat(count(second, 0) + count(second, 1)).as("every acknowledged row exactly once")
        .isEqualTo((long) batches * BATCH);

    // The first comes back without its data: it rejoins as the replica of both shards and copies them whole.
    deleteTree(dir.resolve("first"));
    ShardServerProcess back = server("first-again", firstPort, zookeeper.connectString(), "--shards", "0-1");
    awaitTrue("the returned server is in sync again", Duration.ofSeconds(60), () -> cluster.current().shards()
        .values().stream().allMatch(c -> c.getInSync().contains(firstAddress)));
    for (int shard = 0; shard < SHARDS; shard++) {
      int s = shard;
      awaitTrue("shard " + shard + " copied", Duration.ofSeconds(30), () -> count(back, s) == count(second, s));
    }
    assertThat(count(back, 0) + count(back, 1)).isEqualTo((long) batches * BATCH);
  }

  private static long count(ShardServerProcess server, int shard) {
    try {
      return server.stub().withDeadlineAfter(10, TimeUnit.SECONDS).search(SearchRequest.newBuilder().setShard(shard)
          .setQuery(Query.newBuilder().setTrackTotal(true).setFilter(Filter.newBuilder()
              .setMatchAll(MatchAll.getDefaultInstance()))).build()).getTotal();
    } catch (StatusRuntimeException e) {
      return -1;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
