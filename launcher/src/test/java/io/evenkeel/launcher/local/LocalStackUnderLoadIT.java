package io.evenkeel.launcher.local;

import static io.evenkeel.launcher.local.EvenkeelCommand.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.launcher.local.EvenkeelCommand.Run;
import io.evenkeel.schemas.shard.StatsRequest;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/evenkeel local} under load: a shard server killed and one added; a shard's write capacity. */
class LocalStackUnderLoadIT {
  @TempDir Path dir;
  @RegisterExtension final StartedStacks stacks = new StartedStacks();
  private StackProcess stack;
  private final ClusterClient cluster = new ClusterClient();

  @AfterEach
  void closeCluster() {
    cluster.close();
  }

  /**
   * The whole pipeline through a failover: a shard server is killed with -9 while {@code load --wait} runs; the
   * replicas of its primaries take over, the load completes with every row searchable exactly once, and the server,
   * restarted by the launcher, rejoins as a replica and gets in sync. Then {@code add-server} adds a third server to
   * the running stack: the master moves its share of copies onto it while every query answers every row.
   */
  @Test
  void aShardServerKilledUnderLoadLosesNoRowAndAnAddedOneTakesItsShare() throws Exception {
    int base = StackPorts.freeBase();
    Path data = dir.resolve("data");
    stack = stacks.start(dir, "local", "--no-replay", "--base-port", Integer.toString(base),
        "--data-dir", data.toString(), "--status-interval", "2s");
    stack.awaitOutput("Evenkeel is ready", 180);
    stack.awaitOutput("8 primaries, 8 replicas (8 in sync", 180);
    int rows = 40_000;
    Path file = dir.resolve("failover.jsonl");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
      for (int i = 0; i < rows; i++) {
        out.println(row(2_000 + i % 300, i, 0));
      }
    }
    ProcessHandle victim = stack.process.descendants().filter(p -> p.info().commandLine().orElse("")
        .contains("--port " + (base + 10))).findFirst().orElseThrow();
    Run[] load = new Run[1];
    long started = System.nanoTime();
    Thread loader = new Thread(() -> {
      try {
        load[0] = EvenkeelCommand.run(dir, "load", file.toString(), "--data-dir", data.toString(), "--wait");
      } catch (Exception e) {
        load[0] = new Run(-1, e.toString());
      }
    });
    loader.start();
    // Killed under load: once its copies hold some of the rows (a new JVM may take seconds to send the first).
    ShardAddress victimAddress = new ShardAddress("127.0.0.1", base + 10);
    long loadDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (docsOn(victimAddress) == 0) {
      assertThat(System.nanoTime()).as("the load's first rows on shard-server-0").isLessThan(loadDeadline);
      Thread.sleep(20);
    }
    long killedAfter = System.nanoTime() - started;
    new ProcessBuilder("kill", "-9", Long.toString(victim.pid())).start().waitFor(10, TimeUnit.SECONDS);
    loader.join(TimeUnit.MINUTES.toMillis(4));
    assertThat(load[0]).as("load --wait returned").isNotNull();
    assertThat(load[0].exitCode()).as(load[0].output()).isEqualTo(0);
    assertThat(load[0].output()).contains("all 40,000 loaded rows searchable");
    System.out.printf("failover under load: %,d rows loaded and searchable in %.1f s with shard-server-0 killed "
        + "%.1f s in%n", rows, (System.nanoTime() - started) / 1e9, killedAfter / 1e9);
    JsonNode counted = sql(data, "SELECT COUNT(*), COUNT(DISTINCT row_id) FROM transaction_logs");
    assertThat(counted.get(0).get(0).asLong()).as("every row exactly once").isEqualTo(rows);
    assertThat(counted.get(0).get(1).asLong()).isEqualTo(rows);
    assertThat(String.join("\n", stack.output)).contains("shard-server-0 died");
    stack.awaitOutput("shard-server-0 restarted", 180);
    int restartedAt = stack.output.size();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (stack.output.subList(restartedAt, stack.output.size()).stream()
        .noneMatch(l -> l.contains("8 replicas (8 in sync"))) {
      assertThat(System.nanoTime()).as("the restarted server's replicas get in sync; output:\n%s",
          String.join("\n", stack.output)).isLessThan(deadline);
      Thread.sleep(500);
    }

    // A third server joins the running stack while queries run: the master moves copies onto it (primaries by
    // handover), and every query meanwhile answers every row.
    String queryService = StackInfo.read(data).queryService();
    HttpClient http = HttpClient.newHttpClient();
    List<String> wrongAnswers = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger queries = new AtomicInteger();
    AtomicBoolean querying = new AtomicBoolean(true);
    Thread reader = new Thread(() -> {
      while (querying.get()) {
        try {
          HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(queryService + "/sql"))
              .POST(HttpRequest.BodyPublishers.ofString("{\"sql\": \"SELECT COUNT(*) FROM transaction_logs\"}"))
              .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
          JsonNode body = new ObjectMapper().readTree(answer.body());
          if (answer.statusCode() != 200 || body.at("/rows/0/0").asLong() != rows) {
            wrongAnswers.add(answer.statusCode() + " " + answer.body());
          }
          queries.incrementAndGet();
          Thread.sleep(100);
        } catch (IOException | InterruptedException e) {
          wrongAnswers.add(e.toString());
        }
      }
    });
    reader.start();
    long adding = System.nanoTime();
    Run add = EvenkeelCommand.run(dir, "add-server", "--data-dir", data.toString());
    querying.set(false);
    reader.join();
    System.out.printf("add server: %s%n%d queries while the copies moved (%.1f s), %d wrong%n",
        add.output().lines().filter(l -> l.startsWith("balanced")).findFirst().orElse("not balanced"), queries.get(),
        (System.nanoTime() - adding) / 1e9, wrongAnswers.size());
    assertThat(add.exitCode()).as(add.output()).isEqualTo(0);
    assertThat(add.output()).contains("shard server 127.0.0.1:" + (base + 12) + " joined")
        .containsPattern("balanced in [0-9.]+ s: copies per server 127.0.0.1:\\d+ [56], 127.0.0.1:\\d+ [56], "
            + "127.0.0.1:" + (base + 12) + " [56];");
    assertThat(wrongAnswers).as("queries while copies moved").isEmpty();
    assertThat(queries.get()).isPositive();
    assertThat(String.join("\n", stack.output)).contains("shard-server-2  ready");
    JsonNode afterMoves = sql(data, "SELECT COUNT(*), COUNT(DISTINCT row_id) FROM transaction_logs");
    assertThat(afterMoves.get(0).get(0).asLong()).as("every row exactly once after the moves").isEqualTo(rows);
    assertThat(afterMoves.get(0).get(1).asLong()).isEqualTo(rows);

    // The query service holds no data: dead (it exits on OutOfMemoryError), the launcher starts it again.
    stack.process.descendants().filter(p -> p.info().commandLine().orElse("").contains("query-service.jar"))
        .findFirst().orElseThrow().destroyForcibly();
    stack.awaitOutput("query-service restarted", 180);
    assertThat(sql(data, "SELECT COUNT(*) FROM transaction_logs").get(0).get(0).asLong()).isEqualTo(rows);
    stack.sendSigint();
    assertThat(stack.process.waitFor(300, TimeUnit.SECONDS)).as("the launcher exits after SIGINT; output:\n%s",
        String.join("\n", stack.output)).isTrue();
  }

  /**
   * {@code --shard-write-capacity} makes a shard the bottleneck, as ESDB's skew experiments need on a small machine:
   * under hashing one tenant's 10,000 rows all go to one shard, which indexes at most 1,000 a second, so they take at
   * least 10 s to be searchable (12.3 s here; 3.4 s without the capacity); and all of them are.
   */
  @Test
  void aShardWriteCapacityMakesOneTenantsShardTheBottleneck() throws Exception {
    int base = StackPorts.freeBase();
    Path data = dir.resolve("data");
    stack = stacks.start(dir, "local", "--no-replay", "--base-port", Integer.toString(base),
        "--data-dir", data.toString(), "--replicas", "0", "--shards", "4", "--policy", "hashing",
        "--shard-write-capacity", "1000");
    stack.awaitOutput("Evenkeel is ready", 180);
    int rows = 10_000;
    Path file = dir.resolve("one-tenant.jsonl");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
      for (int i = 0; i < rows; i++) {
        out.println(row(77, i, 0));
      }
    }
    long started = System.nanoTime();
    Run load = EvenkeelCommand.run(dir, "load", file.toString(), "--data-dir", data.toString(), "--wait");
    double seconds = (System.nanoTime() - started) / 1e9;
    assertThat(load.exitCode()).as(load.output()).isEqualTo(0);
    assertThat(load.output()).contains("all 10,000 loaded rows searchable");
    assertThat(seconds).as("10,000 rows through one shard at 1,000 a second").isGreaterThanOrEqualTo(10);
    System.out.printf("one tenant's %,d rows through a shard of 1,000 changes/s: searchable in %.1f s%n", rows,
        seconds);
    assertThat(sql(data, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 77").get(0).get(0).asLong())
        .isEqualTo(rows);
  }

  /** The documents of every copy on {@code server}, 0 while it answers none. */
  private long docsOn(ShardAddress server) {
    long docs = 0;
    for (int shard = 0; shard < 8; shard++) {
      try {
        docs += cluster.blockingStub(server).withDeadlineAfter(2, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      } catch (StatusRuntimeException notHere) {
        // Not a copy of this server's, or not answering yet.
      }
    }
    return docs;
  }

  private JsonNode sql(Path data, String query) throws Exception {
    return EvenkeelCommand.sqlRows(dir, data, null, query);
  }
}
