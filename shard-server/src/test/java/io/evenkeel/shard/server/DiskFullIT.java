package io.evenkeel.shard.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
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

  private static ShardServerProcess start(Path data, Path log) throws IOException, InterruptedException {
    JavaCommand java = JavaCommand.mainClass(ShardServerProcess.MAIN_CLASS).heap("384m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    return ShardServerProcess.launch("shard-server", java, data, 0, log, List.of("--shards", "0",
        "--refresh-interval-ms", "200", "--durability", "request")).awaitReady(Duration.ofSeconds(60));
  }

  private static long docs(ShardServerProcess server) {
    server.stub().withDeadlineAfter(30, TimeUnit.SECONDS)
        .refreshShards(RefreshShardsRequest.newBuilder().addShards(0).build());
    return server.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
        .stats(StatsRequest.newBuilder().setShard(0).build()).getDocs();
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
}
