package io.evenkeel.shard.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.shard.testing.TestRows;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard server that runs out of heap exits at once (every JVM of the project runs with
 * {@code -XX:+ExitOnOutOfMemoryError}) instead of staying half alive with its port and its ZooKeeper session, so
 * that its supervisor restarts it and the cluster fails its shards over. Here its read budget is lifted on purpose
 * (it is what normally refuses such a query) and its heap is 96 MiB: 100 MB of rows, then one search for all of them,
 * run it out of heap (the writes may already).
 */
class OutOfMemoryIT {
  @TempDir Path dir;

  @Test
  void aServerOutOfHeapExitsInsteadOfStayingHalfAlive() throws Exception {
    JavaCommand java = JavaCommand.mainClass(ShardServerProcess.MAIN_CLASS).heap("96m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    ShardServerProcess server = ShardServerProcess.launch("shard-server", java, dir, 0, dir.resolve("server.log"),
        List.of("--shards", "0", "--ram-buffer-mb", "4", "--read-memory", "64g", "--request-read-memory", "64g"))
        .awaitReady(Duration.ofSeconds(60));
    try {
      assertThat(ProcessHandle.of(server.process().pid()).orElseThrow().info().commandLine().orElse(""))
          .contains(JavaCommand.EXIT_ON_OUT_OF_MEMORY);
      Random random = new Random(64);
      String stage = "writing";
      try {
        for (int batch = 0; batch < 100; batch++) {
          List<TransactionLogChange> rows = new ArrayList<>();
          for (int i = 0; i < 500; i++) {
            long row = batch * 500L + i;
            rows.add(TestRows.insert(row % 10, row, 1).setTitle(randomText(random, 2_000)).build());
          }
          server.write(0, rows, batch == 99);
        }
        stage = "searching";
        server.stub().withDeadlineAfter(60, TimeUnit.SECONDS).search(SearchRequest.newBuilder().setShard(0)
            .setQuery(Query.newBuilder().setLimit(100_000).setIncludeRows(true)).build());
      } catch (StatusRuntimeException expected) {
        System.out.println("the server with 96 MiB of heap died while " + stage + ": " + expected.getStatus());
      }
      int exitCode = server.process().onExit().get(2, TimeUnit.MINUTES);
      // 3: what HotSpot exits with on -XX:+ExitOnOutOfMemoryError.
      assertThat(exitCode).as("exit code; log:\n%s", String.join("\n", server.process().tail(20))).isEqualTo(3);
      assertThat(Files.readString(dir.resolve("server.log")))
          .contains("Terminating due to java.lang.OutOfMemoryError");
    } finally {
      server.close();
    }
  }

  private static String randomText(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }
}
