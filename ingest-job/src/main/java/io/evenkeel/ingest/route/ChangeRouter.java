package io.evenkeel.ingest.route;

import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.source.SourcedChange;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.Participant;
import io.evenkeel.router.protocol.RoutingPendingException;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives each change its shard. With the dynamic policy every parallel instance is a participant of the rule commit
 * protocol: it routes with the committed rule list and holds (waits on) rows created at or after the effective time
 * of a round in flight, so a rule never moves a row already routed. A change always routes by its row's creation
 * time, so updates and deletes go where the insert went.
 */
public final class ChangeRouter extends ProcessFunction<SourcedChange, RoutedChange> {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeRouter.class);
  private final IngestSettings settings;
  private transient CuratorFramework zookeeper;
  private transient Participant participant;
  private transient RoutingPolicy fixed;
  private transient Duration maxWait;
  private transient Counter routed;

  public ChangeRouter(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    AvroTrust.install();
    routed = getRuntimeContext().getMetricGroup().counter("routedChanges");
    if (!settings.policy().byRuleList()) {
      fixed = settings.fixedPolicy();
      return;
    }
    zookeeper = settings.startZooKeeperClient();
    String id = "ingest-router-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + "-"
        + UUID.randomUUID().toString().substring(0, 8);
    participant = new Participant(zookeeper, settings.protocolConfig(), id);
    participant.start();
    // Long enough for any round to be decided (votes within T/2) and for a row from just ahead of our clock.
    maxWait = Duration.ofMillis(settings.balancer().effectiveDelayMs() * 3);
  }

  @Override
  public void processElement(SourcedChange sourced, Context context, Collector<RoutedChange> out) throws Exception {
    TransactionLogChange change = sourced.change;
    int shard = participant == null ? fixed.shardFor(change) : route(change);
    routed.inc();
    out.collect(new RoutedChange(shard, change, sourced.encoded, sourced.topic, sourced.partition,
        sourced.offset, sourced.offset));
  }

  /**
   * Routes by the participant, waiting as long as it takes: while it is cut off from ZooKeeper (or a round stays
   * undecided) no row may be routed, and failing the job would not route one sooner; it would replay everything
   * since the last checkpoint instead. The wait holds this task (backpressure), checkpoints that cannot pass it
   * expire and are tolerated ({@code IngestJob}), and routing resumes when the participant has rejoined.
   */
  private int route(TransactionLogChange change) throws InterruptedException {
    long started = System.nanoTime();
    while (true) {
      try {
        return participant.route(change.getTenantId(), change.getRowId(), change.getCreatedTime(), maxWait);
      } catch (RoutingPendingException e) {
        LOG.warn("routing waits ({} s so far): {}", (System.nanoTime() - started) / 1_000_000_000, e.reason());
      }
    }
  }

  @Override
  public void close() {
    if (participant != null) {
      participant.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
