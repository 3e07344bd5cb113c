package io.evenkeel.ingest.settings;

import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.cluster.state.ClusterPlacement;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.LogStorePlanner;
import io.evenkeel.router.planner.OffsetSizeGovernor;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.table.ColumnMapping;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Properties;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/**
 * The job's settings, shipped to every operator; the fields are also the job's command-line flags (a picocli mixin
 * of the main class). {@link #validate} names any bad value.
 */
public class IngestSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  @Option(names = "--bootstrap-servers", description = "Kafka brokers. (default: ${DEFAULT-VALUE})")
  public String bootstrapServers = "127.0.0.1:9092";

  @Option(names = "--topic", description = "Topic of Avro single-object changes. (default: ${DEFAULT-VALUE})")
  public String topic = "transaction-logs";

  @Option(names = "--cdc-topic", paramLabel = "TOPIC",
      description = "Also read Debezium's change events of a MySQL or MariaDB table from this topic (bin/evenkeel cdc"
          + " publishes them to <prefix>.<database>.<table>).")
  public String cdcTopic;

  @Option(names = "--cdc-columns", defaultValue = "", paramLabel = "MAPPING",
      description = "Which column of the captured table feeds each column of transaction_logs where the names"
          + " differ: tenant_id=seller_id,row_id=order_id,created_time=created_at (the CDC runner's --columns).")
  public String cdcColumns = "";

  @Option(names = "--cdc-datetime-zone", defaultValue = "UTC", paramLabel = "ZONE",
      description = "The time zone of the captured table's DATETIME values (TIMESTAMP values are instants already)."
          + " (default: ${DEFAULT-VALUE})")
  public String cdcDatetimeZone = "UTC";

  @Option(names = "--dead-letter-topic",
      description = "Where undecodable or invalid records go, with the reason. (default: ${DEFAULT-VALUE})")
  public String deadLetterTopic = "transaction-logs-dead-letters";

  @Option(names = "--summary-topic",
      description = "Where the monitor writes its window summaries. (default: ${DEFAULT-VALUE})")
  public String summaryTopic = "tenant-window-summaries";

  @Option(names = "--proposal-topic",
      description = "Where rule proposals and their outcomes go. (default: ${DEFAULT-VALUE})")
  public String proposalTopic = "rule-proposals";

  @Option(names = "--group-id", description = "Kafka consumer group. (default: ${DEFAULT-VALUE})")
  public String groupId = "evenkeel-ingest";

  @Option(names = "--written-offsets-group",
      description = "The Kafka consumer group in which the sink records, per partition, the offset up to which every "
          + "change is written to its shard (no consumer joins it). (default: <group-id>.written)")
  public String writtenOffsetsGroup;

  @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties for every client of "
      + "the job (source, sinks, the written-offsets admin), e.g. security.protocol, sasl.mechanism, sasl.jaas.config, "
      + "ssl.truststore.location.")
  public String kafkaConfig;

  @Option(names = "--start-offsets",
      description = "earliest, latest, or committed (falling back to earliest). (default: ${DEFAULT-VALUE})")
  public String startOffsets = "committed";

  @Option(names = "--zookeeper",
      description = "ZooKeeper connect string (the dynamic policy needs it). (default: ${DEFAULT-VALUE})")
  public String zookeeper = "127.0.0.1:2181";

  @Option(names = "--zookeeper-root", description = "The cluster's ZooKeeper root. (default: ${DEFAULT-VALUE})")
  public String zookeeperRoot = "/evenkeel/local";

  @Option(names = "--zookeeper-credentials", paramLabel = "FILE", description = "A file holding user:password: "
      + "authenticate with ZooKeeper (digest) and create every node for that identity only.")
  public String zookeeperCredentials;

  @Option(names = "--shards", description = "Number of shards N. (default: ${DEFAULT-VALUE})")
  public int numShards = 12;

  @Option(names = "--tls-ca", paramLabel = "PEM", description = "With --tls-cert and --tls-key: talk to the shard "
      + "servers over mutual TLS, trusting the servers this CA signed.")
  public String tlsCa;

  @Option(names = "--tls-cert", paramLabel = "PEM", description = "This job's certificate; its common name must be "
      + "among the shard servers' --writers (their default: ingest).")
  public String tlsCert;

  @Option(names = "--tls-key", paramLabel = "PEM", description = "This job's private key (PKCS#8).")
  public String tlsKey;

  @Option(names = "--placement", required = true,
      description = "Shard primaries: host:port=shards,... e.g. 127.0.0.1:7001=0-5,127.0.0.1:7002=6-11, or "
          + "'zookeeper': the cluster state under --zookeeper-root, followed live (primaries move with failover)")
  public String placement = "";

  @Option(names = "--policy", description = "hashing, double:L, dynamic or logstore. (default: ${DEFAULT-VALUE})")
  public String policy = "dynamic";

  @Option(names = "--monitor-window-ms",
      description = "Tumbling window of the tenant monitor. (default: ${DEFAULT-VALUE})")
  public long monitorWindowMs = 10_000;

  @Option(names = "--batch-window-ms",
      description = "Write batching window per row; 0 disables batching. (default: ${DEFAULT-VALUE})")
  public long batchWindowMs = 200;

  @Option(names = "--sink-batch-size", description = "Changes per write request. (default: ${DEFAULT-VALUE})")
  public int sinkBatchSize = 1_000;

  @Option(names = "--sink-batch-bytes",
      description = "Bytes per write request at most (a single bigger change goes alone), well under the shard"
          + " servers' 64 MiB request limit. (default: ${DEFAULT-VALUE})")
  public long sinkBatchBytes = 4L << 20;

  @Option(names = "--sink-linger-ms", description = "How long a partial batch may wait. (default: ${DEFAULT-VALUE})")
  public long sinkLingerMs = 50;

  @Option(names = "--sink-lanes", arity = "1", paramLabel = "true|false",
      description = "Isolated lanes: while the monitor shows a tenant hot (its share of the writes above the hot"
          + " threshold), its changes to each shard go in that shard's hot lane, so a backlog of them does not hold"
          + " other tenants' changes; false sends every change in one lane per shard."
          + " (default: ${DEFAULT-VALUE})")
  public boolean sinkLanes = true;

  @Option(names = "--sink-surge-changes",
      description = "With the lanes: a tenant above the hot threshold of one second of a sink subtask's changes, and"
          + " with at least this many, takes the hot lane at once, before the monitor's window shows it; 0 waits for"
          + " the monitor. (default: ${DEFAULT-VALUE})")
  public long sinkSurgeChanges = 200;

  @Option(names = "--sink-hot-buffer",
      description = "How many changes of hot tenants one shard's hot lane may buffer in memory before the sink"
          + " backpressures or spills. (default: ${DEFAULT-VALUE})")
  public int sinkHotBuffer = 20_000;

  @Option(names = "--sink-lane-buffer",
      description = "How many changes one shard's normal lane may buffer in memory while its shard is slow or"
          + " away, before the sink backpressures or spills. (default: ${DEFAULT-VALUE})")
  public int sinkLaneBuffer = 50_000;

  @Option(names = "--sink-lane-buffer-bytes",
      description = "How many bytes of changes one shard's lane (normal or hot) may buffer in memory before the"
          + " sink backpressures or spills. (default: ${DEFAULT-VALUE})")
  public long sinkLaneBufferBytes = 32L << 20;

  @Option(names = "--sink-spill-after-ms",
      description = "A lane at its bound whose shard has not answered its request for this long spills its next"
          + " changes to disk, so a stalled shard delays only its own rows; until then the sink backpressures."
          + " (default: ${DEFAULT-VALUE})")
  public long sinkSpillAfterMs = 5_000;

  @Option(names = "--sink-spill-bytes",
      description = "How many bytes of changes the lanes of one sink subtask may hold on disk in all, before the"
          + " sink backpressures; 0 never spills. (default: ${DEFAULT-VALUE})")
  public long sinkSpillBytes = 4L << 30;

  @Option(names = "--sink-spill-dir",
      description = "Where lanes spill (a directory private to the owner is made in it); default: a new temporary"
          + " directory.")
  public String sinkSpillDir;

  @Option(names = "--sink-request-timeout-ms",
      description = "Deadline of one write request. (default: ${DEFAULT-VALUE})")
  public long sinkRequestTimeoutMs = 30_000;

  @Option(names = "--alpha", description = "The planner's alpha (maxTenantShareOfShard). (default: ${DEFAULT-VALUE})")
  public double maxTenantShareOfShard = 0.25;

  @Option(names = "--proposal-rest-ms",
      description = "A tenant is proposed again only after this rest period. (default: ${DEFAULT-VALUE})")
  public long proposalRestMs = OffsetSizeGovernor.Settings.DEFAULT.restMs();

  @Option(names = "--cool-down-ms",
      description = "A widened tenant is narrowed once a smaller L has done for this long. (default: ${DEFAULT-VALUE})")
  public long coolDownMs = OffsetSizeGovernor.Settings.DEFAULT.coolDownMs();

  @Option(names = "--cool-band",
      description = "Hysteresis: a tenant is narrowed only to an L that keeps its share of each shard within this"
          + " fraction of the hot threshold, in (0, 1]. (default: ${DEFAULT-VALUE})")
  public double coolBand = OffsetSizeGovernor.Settings.DEFAULT.coolBand();

  @Option(names = "--min-gain",
      description = "A tenant is widened only when the hottest shard it touches would carry at least this fraction"
          + " less, in [0, 1). (default: ${DEFAULT-VALUE})")
  public double minGain = OffsetSizeGovernor.Settings.DEFAULT.minGain();

  @Option(names = "--effective-delay-ms", description = "T of the rule commit protocol. (default: ${DEFAULT-VALUE})")
  public long effectiveDelayMs = RuleProtocolConfig.DEFAULT_EFFECTIVE_DELAY.toMillis();

  @Option(names = "--max-clock-skew-ms",
      description = "How far ahead of this job's clock a row's created_time may be; below T/2."
          + " (default: ${DEFAULT-VALUE})")
  public long maxClockSkewMs = RuleProtocolConfig.DEFAULT_MAX_CLOCK_SKEW.toMillis();

  /**
   * The share above which the monitor lists a tenant in its window summaries, besides the top 10: every tenant the
   * balancer may act on. Under LogStore's routing its large tenants; else every tenant above the cool band (half the
   * hot threshold by default), so that a widened tenant the summary leaves out is known to be within the band.
   */
  public double monitorReportShare() {
    if (policySpec().kind() == PolicySpec.Kind.LOGSTORE) {
      return LogStorePlanner.largeShare(numShards);
    }
    return coolBand * hotShareThreshold();
  }

  /** The share of all writes above which a tenant is hot (α/N): the balancer widens it, the sink's lanes isolate it. */
  public double hotShareThreshold() {
    return BalancePlanner.builder(numShards).maxTenantShareOfShard(maxTenantShareOfShard).build()
        .hotShareThreshold();
  }

  /** How the hotspot detector damps its proposals: the options above, and two hot windows in a row. */
  public OffsetSizeGovernor.Settings governorSettings() {
    return new OffsetSizeGovernor.Settings(OffsetSizeGovernor.Settings.DEFAULT.hotWindows(), proposalRestMs,
        coolDownMs, coolBand, minGain);
  }

  public RuleProtocolConfig protocolConfig() {
    return RuleProtocolConfig.builder(zookeeperRoot, numShards)
        .effectiveDelay(Duration.ofMillis(effectiveDelayMs))
        .maxClockSkew(Duration.ofMillis(maxClockSkewMs))
        .build();
  }

  /**
   * The placement to write by: fixed, or the cluster state followed live (waiting up to a minute for every shard's
   * primary). The caller closes it.
   */
  public ShardPlacement openPlacement() throws Exception {
    if (!placement.equals(ShardPlacement.FROM_CLUSTER_STATE)) {
      return ShardPlacement.fixed(numShards, placement);
    }
    return ClusterPlacement.open(startZooKeeperClient(), zookeeperRoot, numShards, false, Duration.ofMinutes(1));
  }

  /** A started ZooKeeper client for this cluster; the caller closes it. */
  public CuratorFramework startZooKeeperClient() {
    return ZooKeeperClients.start(zookeeper, path(zookeeperCredentials), new ExponentialBackoffRetry(200, 10));
  }

  public PolicySpec policySpec() {
    return PolicySpec.parse(policy);
  }

  /** Whether rows are routed by the committed rule list (dynamic or logstore). */
  public boolean byRuleList() {
    return policySpec().byRuleList();
  }

  /**
   * The properties of every Kafka client the job makes: the {@code --kafka-config} file's, passed through as they are
   * (security settings), and the bootstrap servers.
   */
  public Properties kafkaProperties() {
    Properties properties = new Properties();
    if (kafkaConfig != null) {
      try (InputStream in = Files.newInputStream(Path.of(kafkaConfig))) {
        properties.load(in);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read --kafka-config " + kafkaConfig + ": " + e.getMessage(), e);
      }
    }
    properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return properties;
  }

  /** Whether the job also reads CDC change events. */
  public boolean cdc() {
    return cdcTopic != null && !cdcTopic.isBlank();
  }

  public ColumnMapping cdcColumnMapping() {
    return ColumnMapping.parse(cdcColumns);
  }

  public ZoneId cdcDatetimeZone() {
    try {
      return ZoneId.of(cdcDatetimeZone);
    } catch (java.time.DateTimeException e) {
      throw new IllegalArgumentException("--cdc-datetime-zone: " + e.getMessage(), e);
    }
  }

  /** The shard servers' TLS settings, or null for plaintext; all three files or none. */
  public ClientTls clientTls() {
    return ClientTls.of(path(tlsCa), path(tlsCert), path(tlsKey));
  }

  private static Path path(String file) {
    return file == null ? null : Path.of(file);
  }

  public RoutingPolicy fixedPolicy() {
    return policySpec().fixedPolicy(numShards);
  }

  public void validate() {
    if (!byRuleList()) {
      fixedPolicy();
    }
    RuleList.empty(numShards);
    if (byRuleList()) {
      protocolConfig();
      governorSettings();
    }
    if (!placement.equals(ShardPlacement.FROM_CLUSTER_STATE)) {
      ShardPlacement.fixed(numShards, placement);
    }
    clientTls();
    kafkaProperties();
    if (!(startOffsets.equals("earliest") || startOffsets.equals("latest") || startOffsets.equals("committed"))) {
      throw new IllegalArgumentException("start offsets must be earliest, latest or committed; got: '"
          + startOffsets + "'");
    }
    requirePositive("monitor window", monitorWindowMs);
    if (cdc()) {
      cdcColumnMapping();
      cdcDatetimeZone();
    }
    requirePositive("sink batch size", sinkBatchSize);
    requirePositive("sink linger", sinkLingerMs);
    requirePositive("sink lane buffer", sinkLaneBuffer);
    requirePositive("sink batch bytes", sinkBatchBytes);
    requirePositive("sink lane buffer bytes", sinkLaneBufferBytes);
    requirePositive("sink spill after", sinkSpillAfterMs);
    if (sinkSpillBytes < 0) {
      throw new IllegalArgumentException("--sink-spill-bytes must be 0 (no spill) or positive, got " + sinkSpillBytes);
    }
    if (batchWindowMs < 0) {
      throw new IllegalArgumentException("batch window must be >= 0 ms (0 disables batching); got: " + batchWindowMs);
    }
  }

  private static void requirePositive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0; got: " + value);
    }
  }

  /** The group of {@code --written-offsets-group}, or its default. */
  public String writtenOffsetsGroup() {
    return writtenOffsetsGroup != null ? writtenOffsetsGroup : groupId + ".written";
  }
}
