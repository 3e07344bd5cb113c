package io.evenkeel.launcher.local;

import io.evenkeel.router.client.ClusterClient;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * documents and refresh lag from the shard servers' Stats calls; the ingest backlog from Kafka (the topic's end
 * offsets minus the ingest job's written offsets: the changes not yet acknowledged by their shards); committed rules
 * and the tenants they spread from the rule list in ZooKeeper.
 */
final class StatusLine implements AutoCloseable {
  private final StackInfo info;
  private final ClusterClient cluster;
  private final List<ShardAddress> servers;
  private final StackLayout layout;
  private final Admin kafka;
  private final CuratorFramework zookeeper;
  private final RuleListClient rules;

  StatusLine(StackInfo info, ClusterClient cluster, List<ShardAddress> servers, StackLayout layout,
      Path zookeeperCredentials) throws Exception {
    this.info = info;
    this.cluster = cluster;
    this.servers = servers;
    this.layout = layout;
    this.kafka = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, info.bootstrapServers(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000));
    this.zookeeper = ZooKeeperClients.start(info.zookeeper(), zookeeperCredentials,
        new ExponentialBackoffRetry(200, 3));
    this.rules = new RuleListClient(zookeeper, RuleProtocolConfig.builder(info.zookeeperRoot(), info.shards()).build());
    rules.start();
  }

  /** Totals over every shard. */
  record ShardTotals(long docs, double writesPerSecond, long maxRefreshLagMs) {}

  ShardTotals shardTotals() {
    long docs = 0;
    double writes = 0;
    long lag = 0;
    for (int i = 0; i < servers.size(); i++) {
      ShardServiceGrpc.ShardServiceBlockingStub stub = cluster.blockingStub(servers.get(i));
      for (int shard = layout.firstShard(i); shard <= layout.lastShard(i); shard++) {
        ShardStats stats = stub.withDeadlineAfter(2, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build());
        docs += stats.getDocs();
        writes += stats.getWritesPerSecond();
        lag = Math.max(lag, stats.getRefreshLagMs());
      }
    }
    return new ShardTotals(docs, writes, lag);
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
        hot.merge(tenant, rule.offsetSize(), Math::max);
      }
    }
    if (!hot.isEmpty()) {
      line.append(" · hot ").append(hot.entrySet().stream()
          .sorted(Map.Entry.<Long, Integer>comparingByValue().reversed())
          .limit(5).map(e -> e.getKey() + " (L=" + e.getValue() + ")")
          .collect(Collectors.joining(", ")));
      if (hot.size() > 5) {
        line.append(" +").append(hot.size() - 5);
      }
    }
    return line.toString();
  }

  @Override
  public void close() {
    rules.close();
    zookeeper.close();
    kafka.close();
  }
}
