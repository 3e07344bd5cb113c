package io.evenkeel.ingest.settings;

import io.evenkeel.cluster.options.ClientTlsSettings;
import io.evenkeel.cluster.options.PlacementSettings;
import io.evenkeel.cluster.options.ZooKeeperSettings;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.planner.LogStorePlanner;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import java.io.Serializable;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The job's settings, shipped to every operator: immutable, a record per concern, built from the job's flags and
 * checked by {@link IngestOptions} (the main's mixin) or {@link #parse}. The methods derive what needs more than one
 * concern.
 *
 * @param kafka the brokers, clients and topics
 * @param cdc the second source, Debezium's change events, if any
 * @param zookeeper the cluster's ZooKeeper (the rule commit protocol, the cluster state)
 * @param placement the number of shards and where their primaries are
 * @param tls the shard servers' client TLS, or none
 * @param policy the routing policy
 * @param balancer the monitor, the detectors and the rule commit protocol
 * @param sink the per-row batching and the shard sink
 */
public record IngestSettings(KafkaSettings kafka, CdcSettings cdc, ZooKeeperSettings zookeeper,
    PlacementSettings placement, ClientTlsSettings tls, PolicySpec policy, BalancerSettings balancer,
    SinkSettings sink) implements Serializable {
  /**
   * The settings the job's main runs by with {@code args}, checked as it checks them; unlike the main, it takes a
   * flag given again, the last value winning, so that tests and benchmarks can override a base set of flags.
   */
  public static IngestSettings parse(String... args) {
    return IngestOptions.parse(args);
  }

  /**
   * The share above which the monitor lists a tenant in its window summaries, besides the top 10: every tenant the
   * balancer may act on. Under LogStore's routing its large tenants; else every tenant above the cool band (half the
   * hot threshold by default), so that a widened tenant the summary leaves out is known to be within the band.
   */
  public double monitorReportShare() {
    if (policy.kind() == PolicySpec.Kind.LOGSTORE) {
      return LogStorePlanner.largeShare(placement.numShards());
    }
    return balancer.coolBand() * hotShareThreshold();
  }

  /** The share of all writes above which a tenant is hot (α/N): the balancer widens it, the sink's lanes isolate it. */
  public double hotShareThreshold() {
    return BalancePlanner.builder(placement.numShards()).maxTenantShareOfShard(balancer.maxTenantShareOfShard())
        .build().hotShareThreshold();
  }

  public RuleProtocolConfig protocolConfig() {
    return RuleProtocolConfig.builder(zookeeper.root(), placement.numShards())
        .effectiveDelay(Duration.ofMillis(balancer.effectiveDelayMs()))
        .maxClockSkew(Duration.ofMillis(balancer.maxClockSkewMs()))
        .build();
  }

  /**
   * The placement to write by: fixed, or the cluster state followed live (waiting up to a minute for every shard's
   * primary). The caller closes it.
   */
  public ShardPlacement openPlacement() throws Exception {
    return placement.open(zookeeper, retry(), false);
  }

  /** A started ZooKeeper client for this cluster; the caller closes it. */
  public CuratorFramework startZooKeeperClient() {
    return zookeeper.startClient(retry());
  }

  private static ExponentialBackoffRetry retry() {
    return new ExponentialBackoffRetry(200, 10);
  }

  /** The policy of a fixed spec (hashing or double:L) over the cluster's shards. */
  public RoutingPolicy fixedPolicy() {
    return policy.fixedPolicy(placement.numShards());
  }
}
