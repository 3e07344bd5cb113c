package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.replication.DirectWrites;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.TransactionLogChange;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * What this machine's shard server indexes a second, uncapped, for the simulator at paper scale: rows written straight
 * to the primaries as the ingest job's sink sends them ({@link DirectWrites}, nothing else running), first all to one
 * shard (its one indexing thread), then spread over every shard of the server (its cores).
 *
 * @param shardRowsPerSecond rows one shard acknowledged a second, alone
 * @param serverRowsPerSecond rows the server's shards acknowledged a second together
 * @param cores this machine's cores, which the server and the writing client shared
 */
record ShardCosts(double shardRowsPerSecond, double serverRowsPerSecond, int cores) {
  /** Measures them on a fresh {@code bin/evenkeel local} of one server with {@code shards} shards, no replicas. */
  static ShardCosts measure(Path repo, Path dataDir, int shards, int rows) throws Exception {
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, dataDir, List.of("--shard-servers", "1", "--shards",
        Integer.toString(shards), "--replicas", "0"));
        CuratorFramework zookeeper = ZooKeeperClients.start("127.0.0.1:" + stack.basePort(), null,
            new ExponentialBackoffRetry(200, 5));
        ClusterStateClient cluster = new ClusterStateClient(zookeeper, "/evenkeel/local");
        ClusterClient client = new ClusterClient()) {
      cluster.start();
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!IntStream.range(0, shards).allMatch(shard -> cluster.current().livePrimary(shard).isPresent())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no live primary for every shard after 2 minutes");
        }
        Thread.sleep(100);
      }
      ClusterState state = cluster.current();
      List<TransactionLogChange> generated = PeerRows.generate(31, 3 * rows, 500).rows();
      // A fresh JVM compiles through its first writes: a round over every shard first, unmeasured.
      new DirectWrites(client, shards).write(state, generated.subList(0, rows));
      double one = rowsPerSecond(new DirectWrites(client, 1), state, generated.subList(rows, 2 * rows));
      double all = rowsPerSecond(new DirectWrites(client, shards), state, generated.subList(2 * rows, 3 * rows));
      return new ShardCosts(one, all, Runtime.getRuntime().availableProcessors());
    }
  }

  private static double rowsPerSecond(DirectWrites writes, ClusterState state, List<TransactionLogChange> rows)
      throws InterruptedException {
    long started = System.nanoTime();
    writes.write(state, rows);
    return rows.size() / ((System.nanoTime() - started) / 1e9);
  }
}
