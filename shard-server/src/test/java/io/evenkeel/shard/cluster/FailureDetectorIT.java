package io.evenkeel.shard.cluster;

import static io.evenkeel.shard.cluster.ClusterFixture.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardCopies;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shard servers with ZooKeeper sessions of 30 s: the first holds both shards' primaries, the second their
 * replicas. Paused (SIGSTOP) for longer than the failure detector needs, the first keeps its primaries: its port still
 * accepts connections, and only its session's expiry could take them. Killed with -9, it loses them within seconds,
 * long before its session would expire: its port refuses connections.
 */
class FailureDetectorIT {
  private static final int SHARDS = 2;
  private static final Duration SESSION = Duration.ofSeconds(30);

  @TempDir Path dir;
  @AutoClose private ClusterFixture fixture;

  @Test
  void aPausedPrimaryKeepsItsShardsAndAKilledOneLosesThemWithinSeconds() throws Exception {
    fixture = new ClusterFixture(dir, "/evenkeel/detector", SHARDS);
    ClusterStateClient cluster = fixture.cluster;
    ShardServerProcess first = fixture.server("first", ClusterFixture.freePort(), SESSION, "--shards", "0-1",
        "--rebalance", "false");
    ShardServerProcess second = fixture.server("second", ClusterFixture.freePort(), SESSION, "--rebalance", "false");
    String firstAddress = "127.0.0.1:" + first.port();
    String secondAddress = "127.0.0.1:" + second.port();
    awaitTrue("every shard has an in-sync replica", Duration.ofSeconds(60), () -> cluster.current().shards().size()
        == SHARDS && cluster.current().shards().values().stream().allMatch(c -> c.getInSync().size() == 1));
    assertThat(fixture.write(fixture.batch(0), Duration.ofSeconds(30), () -> { })).isTrue();

    first.pause();
    try {
      Thread.sleep(FailureDetector.INTERVAL_MS * FailureDetector.REFUSALS * 6);
      assertThat(cluster.current().live(firstAddress)).as("a paused server is still registered").isTrue();
      for (ShardCopies copies : cluster.current().shards().values()) {
        assertThat(copies.getPrimary()).as("a paused primary keeps its shard").isEqualTo(firstAddress);
      }
    } finally {
      first.resume();
    }
    assertThat(fixture.write(fixture.batch(1), Duration.ofSeconds(30), () -> { })).isTrue();

    long killed = System.nanoTime();
    first.kill();
    awaitTrue("both replicas promoted within 5 s of the kill, sessions lasting 30 s", Duration.ofSeconds(5),
        () -> cluster.current().shards().values().stream().allMatch(c -> c.getPrimary().equals(secondAddress)));
    long promotedMs = (System.nanoTime() - killed) / 1_000_000;
    assertThat(fixture.write(fixture.batch(2), Duration.ofSeconds(5), () -> { }))
        .as("writes go to the promoted primary").isTrue();
    long writableMs = (System.nanoTime() - killed) / 1_000_000;
    System.out.printf("failure detection: replicas promoted %d ms and written %d ms after kill -9 (sessions 30 s)%n",
        promotedMs, writableMs);
    assertThat(writableMs).isLessThan(5_000);
  }
}
