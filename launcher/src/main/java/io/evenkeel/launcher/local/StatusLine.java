package io.evenkeel.launcher.local;

import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The one-line status of a running stack, from the sources a real operator would read: rows ingested per second,
 * documents and refresh lag from the primaries' Stats calls, the copies (primaries, replicas in sync of all) from the
 * cluster state in ZooKeeper and the replicas' copy lag from their Stats calls; the ingest backlog from Kafka (the topic's end
 * offsets minus the ingest job's written offsets: the changes not yet acknowledged by their shards); committed rules
 * and the tenants they spread from the rule list in ZooKeeper.
 */
final class StatusLine implements AutoCloseable {
  private final StackInfo info;
  private final ClusterClient cluster;
  private final Admin kafka;
  private final CuratorFramework zookeeper;
  private final RuleListClient rules;
  private final ClusterStateClient clusterState;

  StatusLine(StackInfo info, ClusterClient cluster, Path zookeeperCredentials) throws Exception {
    this.info = info;
    this.cluster = cluster;
    Properties kafkaConfig = new Properties();
    if (info.kafkaConfig() != null) {
      try (InputStream in = Files.newInputStream(Path.of(info.kafkaConfig()))) {
        kafkaConfig.load(in);
      }
    }
    kafkaConfig.putAll(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, info.bootstrapServers(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000));
    this.kafka = Admin.create(kafkaConfig);
    this.zookeeper = ZooKeeperClients.start(info.zookeeper(), zookeeperCredentials,
        new ExponentialBackoffRetry(200, 3));
    this.rules = new RuleListClient(zookeeper, RuleProtocolConfig.builder(info.zookeeperRoot(), info.shards()).build());
    rules.start();
    this.clusterState = new ClusterStateClient(zookeeper, info.zookeeperRoot());
    clusterState.start();
  }

  /** Totals over every shard: its primary's figures, and its replicas'. */
  record ShardTotals(long docs, double writesPerSecond, long maxRefreshLagMs, int primaries, int replicas,
      int inSync, long maxReplicaLagMs, int unreachable) {}

  ShardTotals shardTotals() {
    ClusterState state = clusterState.current();
    long docs = 0;
    double writes = 0;
    long lag = 0;
    int primaries = 0;
    int replicas = 0;
    int inSync = 0;
    long replicaLag = 0;
    int unreachable = 0;
    for (ShardCopies copies : state.shards().values()) {
      StatsRequest request = StatsRequest.newBuilder().setShard(copies.getShard()).build();
      if (state.live(copies.getPrimary())) {
        primaries++;
        ShardStats stats = stats(copies.getPrimary(), request);
        if (stats == null) {
          unreachable++;
        } else {
          docs += stats.getDocs();
          writes += stats.getWritesPerSecond();
          lag = Math.max(lag, stats.getRefreshLagMs());
        }
      }
      for (String replica : state.liveReplicas(copies.getShard())) {
        replicas++;
        inSync += copies.getInSync().contains(replica) ? 1 : 0;
        ShardStats stats = stats(replica, request);
        if (stats == null) {
          unreachable++;
        } else {
          replicaLag = Math.max(replicaLag, stats.getReplicaLagMs());
        }
      }
    }
    return new ShardTotals(docs, writes, lag, primaries, replicas, inSync, replicaLag, unreachable);
  }

  /** A copy's stats, or null when its server does not answer (it may be dying or joining). */
  private ShardStats stats(String server, StatsRequest request) {
    try {
      return cluster.blockingStub(ShardAddress.parse(server)).withDeadlineAfter(2, TimeUnit.SECONDS).stats(request);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Changes in the topic that the ingest job has not written to the shards yet. */
  long backlog() throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed = kafka
        .listConsumerGroupOffsets(StackOptions.WRITTEN_OFFSETS_GROUP)
        .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < StackOptions.TOPIC_PARTITIONS; p++) {
      latest.put(new TopicPartition(info.topic(), p), OffsetSpec.latest());
    }
    long backlog = 0;
    for (var end : kafka.listOffsets(latest).all().get(5, TimeUnit.SECONDS).entrySet()) {
      OffsetAndMetadata done = committed.get(end.getKey());
      backlog += end.getValue().offset() - (done == null ? 0 : done.offset());
    }
    return backlog;
  }

  /** e.g. {@code [12:00:05] 3,412 rows/s · 1,234,567 docs · backlog 1,200 · refresh lag 0.8 s · rules 2 · hot 4711 (L=8)}. */
  String line() {
    StringBuilder line = new StringBuilder("[").append(LocalTime.now().truncatedTo(ChronoUnit.SECONDS)).append("] ");
    try {
      ShardTotals totals = shardTotals();
      line.append(String.format("%,.0f rows/s ingested · %,d docs · refresh lag %.1f s", totals.writesPerSecond(),
          totals.docs(), totals.maxRefreshLagMs() / 1000.0));
      line.append(String.format(" · %d primaries, %d replicas (%d in sync", totals.primaries(), totals.replicas(),
          totals.inSync()));
      line.append(totals.replicas() == 0 ? ")" : String.format(", lag %.1f s)", totals.maxReplicaLagMs() / 1000.0));
      if (totals.unreachable() > 0) {
        line.append(String.format(" · %d copies not answering", totals.unreachable()));
      }
    } catch (RuntimeException e) {
      line.append("shard stats unavailable (").append(e.getMessage()).append(")");
    }
    try {
      line.append(String.format(" · backlog %,d", backlog()));
    } catch (Exception e) {
      line.append(" · backlog unknown (").append(e.getMessage()).append(")");
    }
    RuleList list = rules.current();
    line.append(" · rules ").append(list.size());
    Map<Long, Integer> hot = new HashMap<>();
    for (Rule rule : list.rules()) {
      for (long tenant : rule.tenants()) {
        // How many shards its new rows spread over: L, or a LogStore table's shards.
        hot.merge(tenant, list.spreadFor(tenant, Long.MAX_VALUE), Math::max);
      }
    }
    if (!hot.isEmpty()) {
      line.append(" · hot ").append(hot.entrySet().stream()
          .sorted(Map.Entry.<Long, Integer>comparingByValue().reversed())
          .limit(5).map(e -> e.getKey() + (list.tableFor(e.getKey(), Long.MAX_VALUE) != null
              ? " (" + e.getValue() + (e.getValue() == 1 ? " shard)" : " shards)") : " (L=" + e.getValue() + ")"))
          .collect(Collectors.joining(", ")));
      if (hot.size() > 5) {
        line.append(" +").append(hot.size() - 5);
      }
    }
    return line.toString();
  }

  @Override
  public void close() {
    clusterState.close();
    rules.close();
    zookeeper.close();
    kafka.close();
  }
}
