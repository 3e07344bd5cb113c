package io.evenkeel.ingest.settings;

import io.evenkeel.cluster.options.ClientTlsOptions;
import io.evenkeel.cluster.options.PlacementOptions;
import io.evenkeel.cluster.options.PlacementSettings;
import io.evenkeel.cluster.options.ZooKeeperOptions;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.router.policy.PolicyOptions;
import io.evenkeel.router.rules.RuleList;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * The ingest job's flags, a picocli mixin of its main: those every cluster process shares (ZooKeeper, shards and
 * placement, client TLS, the policy) and the job's own (Kafka, CDC, balancer, sink). {@link #settings} builds the
 * job's {@link IngestSettings} from them and names the first bad value.
 */
public final class IngestOptions {
  /** Where the job finds ZooKeeper unless {@code --zookeeper} says otherwise. */
  public static final String DEFAULT_ZOOKEEPER = "127.0.0.1:2181";
  /** The number of shards unless {@code --shards} says otherwise. */
  public static final int DEFAULT_SHARDS = 12;

  @Mixin
  private KafkaOptions kafka = new KafkaOptions();

  @Mixin
  private CdcOptions cdc = new CdcOptions();

  @Mixin
  private ZooKeeperOptions zookeeper = ZooKeeperOptions.withDefaultConnect(DEFAULT_ZOOKEEPER);

  @Mixin
  private PlacementOptions placement = PlacementOptions.withDefaultShards(DEFAULT_SHARDS);

  @Mixin
  private ClientTlsOptions tls = new ClientTlsOptions();

  @Mixin
  private PolicyOptions policy = new PolicyOptions();

  @Mixin
  private BalancerOptions balancer = new BalancerOptions();

  @Mixin
  private SinkOptions sink = new SinkOptions();

  /** See {@link IngestSettings#parse}. */
  static IngestSettings parse(String... args) {
    IngestOptions options = new IngestOptions();
    new CommandLine(options).setOverwrittenOptionsAllowed(true).parseArgs(args);
    return options.settings();
  }

  /** The job's settings; throws an IllegalArgumentException naming the first bad value. */
  public IngestSettings settings() {
    PlacementSettings shards = placement.settings();
    if (shards.placement() == null) {
      // Not required by picocli: the flag is shared with the query service, whose --new-key runs without it.
      throw new IllegalArgumentException("Missing required option: '" + PlacementOptions.PLACEMENT + "=<placement>'");
    }
    IngestSettings settings = new IngestSettings(kafka.settings(), cdc.settings(), zookeeper.settings(), shards,
        tls.settings(), policy.spec(), balancer.settings(), sink.settings());
    check(settings);
    return settings;
  }

  private static void check(IngestSettings settings) {
    int numShards = settings.placement().numShards();
    if (!settings.policy().byRuleList()) {
      settings.fixedPolicy();
    }
    RuleList.empty(numShards);
    if (settings.policy().byRuleList()) {
      settings.protocolConfig();
      settings.balancer().governorSettings();
    }
    if (!settings.placement().fromClusterState()) {
      ShardPlacement.fixed(numShards, settings.placement().placement());
    }
    settings.tls().clientTls();
    KafkaSettings kafka = settings.kafka();
    kafka.clientProperties();
    String startOffsets = kafka.startOffsets();
    if (!(startOffsets.equals("earliest") || startOffsets.equals("latest") || startOffsets.equals("committed"))) {
      throw new IllegalArgumentException("start offsets must be earliest, latest or committed; got: '"
          + startOffsets + "'");
    }
    requirePositive("monitor window", settings.balancer().monitorWindowMs());
    if (settings.cdc().enabled()) {
      settings.cdc().columnMapping();
      settings.cdc().datetimeZone();
    }
    SinkSettings sink = settings.sink();
    requirePositive("sink batch size", sink.batchSize());
    requirePositive("sink linger", sink.lingerMs());
    requirePositive("sink lane buffer", sink.laneBuffer());
    requirePositive("sink batch bytes", sink.batchBytes());
    requirePositive("sink lane buffer bytes", sink.laneBufferBytes());
    requirePositive("sink spill after", sink.spillAfterMs());
    if (sink.spillBytes() < 0) {
      throw new IllegalArgumentException("--sink-spill-bytes must be 0 (no spill) or positive, got "
          + sink.spillBytes());
    }
    if (sink.batchWindowMs() < 0) {
      throw new IllegalArgumentException("batch window must be >= 0 ms (0 disables batching); got: "
          + sink.batchWindowMs());
    }
  }

  private static void requirePositive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0; got: " + value);
    }
  }
}
