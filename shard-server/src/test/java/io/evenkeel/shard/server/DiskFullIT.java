package io.evenkeel.shard.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.testing.TestRows;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A shard server whose disk fills up (a 24 MiB tmpfs the test mounts; skipped where this user may not mount one):
 * writes fail with a clear error instead of corrupting anything, and once the disk has room again writes resume and
 * every acknowledged row is there, also after a restart.
 */
class DiskFullIT {
  private static final int BATCH = 500;
  private static final String TITLE = "x".repeat(1_000);

  @TempDir Path dir;

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor() == 0;
  }

  private static WriteRequest batch(int number) {
    List<TransactionLogChange> changes = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      long row = (long) number * BATCH + i;
      changes.add(TestRows.insert(row % 50, row, 1).setTitle(TITLE + row).build());
    }
    ShardWriteBatch batch = TestRows.batch(0, number, changes, false);
    return WriteRequest.newBuilder().setShard(0).setBatch(ByteString.copyFrom(TestRows.BATCHES.encode(batch))).build();
  }

  private static ShardServerProcess start(Path data, Path log, String... flags)
      throws IOException, InterruptedException {
    JavaCommand java = JavaCommand.mainClass(ShardServerProcess.MAIN_CLASS).heap("384m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    List<String> args = new ArrayList<>(List.of("--refresh-interval-ms", "200", "--durability", "request"));
    args.addAll(flags.length == 0 ? List.of("--shards", "0") : List.of(flags));
    return ShardServerProcess.launch("shard-server", java, data, 0, log, args).awaitReady(Duration.ofSeconds(60));
  }

  private static ShardStats stats(ShardServerProcess server) {
    return server.stub().withDeadlineAfter(10, TimeUnit.SECONDS).stats(StatsRequest.newBuilder().setShard(0).build());
  }

  /** What the replica searches; -1 while it has nothing to search (joining). */
  private static long replicaDocs(ShardServerProcess replica) {
    try {
      return stats(replica).getDocs();
    } catch (StatusRuntimeException e) {
      return -1;
    }
  }

  private static boolean replicaInSync(ShardServerProcess primary) {
    ShardStats stats = stats(primary);
    return stats.getReplicasCount() == 1 && stats.getReplicas(0).getInSync();
  }

  private static long docs(ShardServerProcess server) {
    server.stub().withDeadlineAfter(30, TimeUnit.SECONDS)
        .refreshShards(RefreshShardsRequest.newBuilder().addShards(0).build());
    return stats(server).getDocs();
  }

  @Test
  void aFullDiskFailsWritesClearlyAndTheyResumeWithEveryAcknowledgedRowWhenSpaceReturns() throws Exception {
    Path disk = dir.resolve("disk");
    Files.createDirectories(disk);
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", disk.toString()),
        "mounting a tmpfs needs root");
    try {
      int acknowledged = 0;
      Status refused = null;
      try (ShardServerProcess server = start(disk.resolve("data"), dir.resolve("server.log"))) {
        while (refused == null) {
          try {
            server.stub().withDeadlineAfter(30, TimeUnit.SECONDS).write(batch(acknowledged));
            acknowledged++;
          } catch (StatusRuntimeException e) {
            refused = e.getStatus();
          }
          assertThat(acknowledged).as("batches written before the 24 MiB disk filled").isLessThan(1_000);
        }
        System.out.printf("disk full after %,d acknowledged rows: %s%n", acknowledged * BATCH, refused);
        assertThat(refused.getCode()).isIn(Status.Code.RESOURCE_EXHAUSTED, Status.Code.UNAVAILABLE,
            Status.Code.NOT_FOUND);
        assertThat(refused.getDescription()).containsAnyOf("disk is full", "index writer closed", "not hosted");

        assertThat(run("mount", "-o", "remount,size=512m", disk.toString())).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int written = acknowledged;
        while (written < acknowledged + 10) {
          try {
            server.stub().withDeadlineAfter(30, TimeUnit.SECONDS).write(batch(written));
            written++;
          } catch (StatusRuntimeException e) {
            assertThat(System.nanoTime()).as("writes resume once the disk has room: " + e.getStatus())
                .isLessThan(deadline);
            Thread.sleep(500);
          }
        }
        assertThat(docs(server)).isEqualTo((long) written * BATCH);
        acknowledged = written;
      }
      System.out.println("disk full, what the server said: " + Files.readAllLines(dir.resolve("server.log")).stream()
          .filter(line -> line.contains("index writer failed") || line.contains("reopened")).toList());
      try (ShardServerProcess restarted = start(disk.resolve("data"), dir.resolve("restarted.log"))) {
        assertThat(docs(restarted)).as("every acknowledged row after a restart").isEqualTo((long) acknowledged * BATCH);
      }
    } finally {
      run("umount", disk.toString());
    }
  }

  /**
   * A replica's disk fills up (physical: its translog and copied files; logical: also its own index writer): the
   * primary drops it and goes on acknowledging writes alone; once the disk has room the replica joins again, catches
   * up and holds every row.
   */
  @ParameterizedTest
  @ValueSource(strings = {"physical", "logical"})
  void aReplicaWhoseDiskFillsIsDroppedAndCatchesUpWhenSpaceReturns(String replication) throws Exception {
    Path disk = dir.resolve("replica-disk");
    Files.createDirectories(disk);
    Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", disk.toString()),
        "mounting a tmpfs needs root");
    try (ShardServerProcess primary = start(dir.resolve("primary"), dir.resolve("primary.log"), "--shards", "0");
        ShardServerProcess replica = start(disk.resolve("data"), dir.resolve("replica.log"), "--replica-of",
            "127.0.0.1:" + primary.port() + "=0", "--replication", replication)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!replicaInSync(primary)) {
        assertThat(System.nanoTime()).as("the replica joins").isLessThan(deadline);
        Thread.sleep(100);
      }
      int written = 0;
      while (replicaInSync(primary)) {
        // Acknowledged throughout: a replica that fails a forward leaves the copies a write waits for.
        primary.stub().withDeadlineAfter(30, TimeUnit.SECONDS).write(batch(written++));
        assertThat(written).as("batches written before the replica's 24 MiB disk filled").isLessThan(1_000);
      }
      System.out.printf("%s replica dropped after %,d rows%n", replication, written * BATCH);
      for (int i = 0; i < 10; i++) {
        primary.stub().withDeadlineAfter(30, TimeUnit.SECONDS).write(batch(written++));
      }

      assertThat(run("mount", "-o", "remount,size=512m", disk.toString())).isTrue();
      long roomAt = System.nanoTime();
      deadline = roomAt + TimeUnit.SECONDS.toNanos(90);
      while (!replicaInSync(primary) || replicaDocs(replica) != (long) written * BATCH) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(String.format("the %s replica did not catch up in 90 s once its disk had room:"
                  + " in sync %s, %,d of %,d rows searchable%nreplica: %s%nprimary: %s", replication,
              replicaInSync(primary), replicaDocs(replica), (long) written * BATCH, replica.process().tailReport(40),
              primary.process().tailReport(40)));
        }
        Thread.sleep(200);
      }
      System.out.printf("%s replica in sync with all %,d rows %d ms after its disk had room%n", replication,
          written * BATCH, (System.nanoTime() - roomAt) / 1_000_000);
      assertThat(docs(primary)).isEqualTo((long) written * BATCH);
    } finally {
      run("umount", disk.toString());
    }
  }
}
