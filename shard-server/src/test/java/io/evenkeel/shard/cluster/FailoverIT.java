package io.evenkeel.shard.cluster;

import static io.evenkeel.shard.cluster.ClusterFixture.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.shard.AddReplicaRequest;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shard-server processes and a real ZooKeeper: the first lays out two shards as their primary, the master gives
 * each a replica on the second. The first is killed with -9 while a writer writes; the replicas are promoted, every
 * acknowledged write is searchable on them exactly once, and writes resume. The first comes back with its data
 * directory deleted, rejoins as a replica and copies everything from the new primaries.
 */
class FailoverIT {
  private static final int SHARDS = 2;
  private static final int BATCH = ClusterFixture.BATCH;

  @TempDir Path dir;
  @AutoClose private ClusterFixture fixture;

  @Test
  void aKilledPrimarysReplicaTakesOverWithEveryAcknowledgedWrite() throws Exception {
    fixture = new ClusterFixture(dir, "/evenkeel/failover", SHARDS);
    ClusterStateClient cluster = fixture.cluster;
    int firstPort = ClusterFixture.freePort();
    // Without rebalancing: the master would otherwise hand one of the first's primaries to the second before the kill.
    ShardServerProcess first = fixture.server("first", firstPort, "--shards", "0-1", "--rebalance", "false");
    ShardServerProcess second = fixture.server("second", ClusterFixture.freePort(), "--rebalance", "false");
    String firstAddress = "127.0.0.1:" + firstPort;
    awaitTrue("every shard has an in-sync replica", Duration.ofSeconds(60), () -> cluster.current().shards().size()
        == SHARDS && cluster.current().shards().values().stream().allMatch(c -> c.getInSync().size() == 1));
    aProcessTheClusterDidNotAssignCannotJoinAsAReplica(firstPort);

    // The writer sends batch after batch, each to its shard's primary as the cluster state says now, retrying a
    // batch until it is acknowledged: a retried batch is harmless (versions), and the count checks it.
    int batches = 120;
    AtomicInteger acknowledged = new AtomicInteger();
    long[] failover = new long[2]; // [first failure nanos, first success after it]
    Thread writer = new Thread(() -> {
      for (int b = 0; b < batches; b++) {
        if (!fixture.write(fixture.batch(b), Duration.ofSeconds(90), () -> {
          if (failover[0] == 0) {
            failover[0] = System.nanoTime();
          }
        })) {
          return;
        }
        if (failover[0] != 0 && failover[1] == 0) {
          failover[1] = System.nanoTime();
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
    assertThat(fixture.count(second.address(), 0) + fixture.count(second.address(), 1))
        .as("every acknowledged row exactly once").isEqualTo((long) batches * BATCH);

    // The first comes back without its data: it rejoins as the replica of both shards and copies them whole.
    deleteTree(dir.resolve("first"));
    ShardServerProcess back = fixture.server("first-again", firstPort, "--shards", "0-1", "--rebalance", "false");
    awaitTrue("the returned server is in sync again", Duration.ofSeconds(60), () -> cluster.current().shards()
        .values().stream().allMatch(c -> c.getInSync().contains(firstAddress)));
    for (int shard = 0; shard < SHARDS; shard++) {
      int s = shard;
      awaitTrue("shard " + shard + " copied", Duration.ofSeconds(30),
          () -> fixture.count(back.address(), s) == (long) batches / SHARDS * BATCH);
    }
  }

  /** It would receive every write of the shard and, once in sync, could be promoted. */
  private static void aProcessTheClusterDidNotAssignCannotJoinAsAReplica(int primaryPort) {
    ManagedChannel stranger = ManagedChannelBuilder.forAddress("127.0.0.1", primaryPort).usePlaintext().build();
    try {
      assertThatThrownBy(() -> ReplicationServiceGrpc.newBlockingStub(stranger).addReplica(AddReplicaRequest
          .newBuilder().setShard(0).setHost("127.0.0.1").setPort(1).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(e.getStatus().getDescription()).contains("127.0.0.1:1", "cluster state");
          });
    } finally {
      stranger.shutdownNow();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
