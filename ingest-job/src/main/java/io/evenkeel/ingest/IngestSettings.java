package io.evenkeel.ingest;

import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.RuleList;
import java.io.Serializable;
import java.time.Duration;

/**
 * The job's settings, shipped to every operator. Built by {@link IngestJobMain} from its flags; {@link #validate}
 * names any bad value.
 */
public class IngestSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  public String bootstrapServers = "127.0.0.1:9092";
  public String topic = "transaction-logs";
  public String deadLetterTopic = "transaction-logs-dead-letters";
  public String summaryTopic = "tenant-window-summaries";
  public String proposalTopic = "rule-proposals";
  public String groupId = "evenkeel-ingest";
  /** earliest, latest, or committed (falling back to earliest). */
  public String startOffsets = "committed";

  /** ZooKeeper connect string; required by the dynamic policy. */
  public String zookeeper = "127.0.0.1:2181";
  /** ZooKeeper root of the cluster, e.g. /evenkeel/local. */
  public String zookeeperRoot = "/evenkeel/local";
  public int numShards = 12;
  /** Where shard primaries listen: host:port=shards,... (see {@link ShardPlacement#fixed}). */
  public String placement = "";
  /** hashing, double:L, or dynamic. */
  public String policy = "dynamic";

  public long monitorWindowMs = 10_000;
  public long batchWindowMs = 200;
  public int sinkBatchSize = 1_000;
  public long sinkLingerMs = 50;
  /** How many changes of hot tenants one shard's hot lane may buffer before the sink backpressures. */
  public int sinkHotBuffer = 20_000;
  public long sinkRequestTimeoutMs = 30_000;

  /** The planner's α (see BalancePlanner). */
  public double maxTenantShareOfShard = 0.25;
  /** A tenant is proposed again only after this rest period. */
  public long proposalRestMs = 60_000;
  /** T of the rule protocol. */
  public long effectiveDelayMs = RuleProtocolConfig.DEFAULT_EFFECTIVE_DELAY.toMillis();
  /** How far ahead of this job's clock a row's created_time may be; below T/2. */
  public long maxClockSkewMs = RuleProtocolConfig.DEFAULT_MAX_CLOCK_SKEW.toMillis();

  public RuleProtocolConfig protocolConfig() {
    return RuleProtocolConfig.builder(zookeeperRoot, numShards)
        .effectiveDelay(Duration.ofMillis(effectiveDelayMs))
        .maxClockSkew(Duration.ofMillis(maxClockSkewMs))
        .build();
  }

  public boolean dynamic() {
    return policy.equals("dynamic");
  }

  /** The routing policy of a fixed setting (hashing or double:L). */
  public RoutingPolicy fixedPolicy() {
    if (policy.equals("hashing")) {
      return RoutingPolicy.hashing(numShards);
    }
    if (policy.startsWith("double:")) {
      return RoutingPolicy.doubleHashing(numShards, Integer.parseInt(policy.substring("double:".length())));
    }
    throw new IllegalStateException("policy " + policy + " is not fixed");
  }

  public void validate() {
    if (!(policy.equals("hashing") || policy.equals("dynamic") || policy.matches("double:\\d+"))) {
      throw new IllegalArgumentException("policy must be hashing, double:L or dynamic; got: '" + policy + "'");
    }
    if (!dynamic()) {
      fixedPolicy();
    }
    RuleList.empty(numShards);
    if (dynamic()) {
      protocolConfig();
    }
    ShardPlacement.fixed(numShards, placement);
    if (!(startOffsets.equals("earliest") || startOffsets.equals("latest") || startOffsets.equals("committed"))) {
      throw new IllegalArgumentException("start offsets must be earliest, latest or committed; got: '"
          + startOffsets + "'");
    }
    requirePositive("monitor window", monitorWindowMs);
    requirePositive("sink batch size", sinkBatchSize);
    requirePositive("sink linger", sinkLingerMs);
    if (batchWindowMs < 0) {
      throw new IllegalArgumentException("batch window must be >= 0 ms (0 disables batching); got: " + batchWindowMs);
    }
  }

  private static void requirePositive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0; got: " + value);
    }
  }
}
