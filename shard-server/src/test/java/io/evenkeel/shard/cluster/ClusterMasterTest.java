package io.evenkeel.shard.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.ZooKeeperServer;
import io.evenkeel.schemas.ShardCopies;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The master on a real ZooKeeper: the primary's server never registered (it is gone), two live servers hold in-sync
 * replicas; the master promotes the one whose translog holds the higher sequence number, or, when that one does not
 * answer, the other. The sequence numbers stand in for the servers' stats (FailoverIT runs real servers).
 */
class ClusterMasterTest {
  private static final String ROOT = "/evenkeel/master";
  private static final String GONE = "127.0.0.1:1";
  private static final String BEHIND = "127.0.0.1:2";
  private static final String AHEAD = "127.0.0.1:3";

  @TempDir Path dir;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private ClusterStateClient client(String connectString) throws Exception {
    CuratorFramework curator = ZooKeeperClients.start(connectString, null, new ExponentialBackoffRetry(100, 5));
    closing.add(curator);
    ClusterStateClient cluster = new ClusterStateClient(curator, ROOT);
    closing.add(cluster);
    cluster.start();
    return cluster;
  }

  @Test
  void promotesTheMostUpToDateLiveInSyncReplica() throws Exception {
    int port = FreePorts.one();
    ZooKeeperServer zookeeper = ZooKeeperServer.start(dir.resolve("zookeeper"), port, dir.resolve("zookeeper.log"),
        Duration.ofSeconds(60));
    closing.add(zookeeper);
    ClusterStateClient behind = client(zookeeper.connectString());
    behind.register(BEHIND);
    client(zookeeper.connectString()).register(AHEAD);
    ClusterStateClient observer = client(zookeeper.connectString());
    for (int shard = 0; shard < 2; shard++) {
      observer.createIfAbsent(ShardCopies.newBuilder().setShard(shard).setPrimary(GONE).setTerm(3)
          .setReplicas(List.of(BEHIND, AHEAD)).setInSync(List.of(BEHIND, AHEAD)).build());
    }
    // Shard 0: both answer, AHEAD holds more. Shard 1: AHEAD does not answer, so BEHIND is the one known in sync.
    Map<String, Long> sequenceNumbers = Map.of(BEHIND, 41_000L, AHEAD, 41_500L);
    CuratorFramework masterClient = ZooKeeperClients.start(zookeeper.connectString(), null,
        new ExponentialBackoffRetry(100, 5));
    closing.add(masterClient);
    ClusterMaster master = new ClusterMaster(masterClient, behind, "master", (server, shard) -> {
      if (shard == 1 && server.equals(AHEAD)) {
        throw new IOException(server + " does not answer");
      }
      return sequenceNumbers.get(server);
    }, 2, true);
    closing.add(master);
    master.start();

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!observer.current().copies(0).map(c -> c.getTerm() == 4).orElse(false)
        || !observer.current().copies(1).map(c -> c.getTerm() == 4).orElse(false)) {
      assertThat(System.nanoTime()).as("both shards promoted").isLessThan(deadline);
      Thread.sleep(50);
    }
    Optional<ShardCopies> first = observer.current().copies(0);
    assertThat(first.orElseThrow().getPrimary()).isEqualTo(AHEAD);
    assertThat(first.orElseThrow().getInSync()).as("in sync with the new primary once they rejoin it").isEmpty();
    assertThat(first.orElseThrow().getReplicas()).containsExactlyInAnyOrder(BEHIND, GONE);
    ShardCopies second = observer.current().copies(1).orElseThrow();
    assertThat(second.getPrimary()).isEqualTo(BEHIND);
    assertThat(second.getInSync()).isEmpty();
  }
}
