package io.evenkeel.ingest.detect;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.planner.BalancePlanner;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.router.protocol.RoundOutcome;
import io.evenkeel.router.protocol.RuleMaster;
import io.evenkeel.router.protocol.RuleProposer;
import io.evenkeel.router.protocol.RuleRequest;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.ProposalOutcome;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.codec.AvroTrust;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes each proposal through the rule commit protocol and answers it with its outcome. It also stands as a master
 * candidate, so a cluster whose only router is this job still has a master, and, when the job starts on a cluster
 * that holds rows but has no rules yet, proposes the initial rules from each tenant's share of storage.
 */
public final class ProposalCommitter extends RichAsyncFunction<RuleProposal, RuleProposal> {
  private static final Logger LOG = LoggerFactory.getLogger(ProposalCommitter.class);
  private final IngestSettings settings;
  private transient CuratorFramework zookeeper;
  private transient RuleMaster master;
  private transient RuleProposer proposer;
  private transient Counter proposed;
  private transient Counter committed;
  private transient Counter aborted;
  /** Submits proposals (a ZooKeeper write each) off the task thread, one at a time. */
  private transient ExecutorService submitter;

  public ProposalCommitter(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    AvroTrust.install();
    zookeeper = settings.startZooKeeperClient();
    String id = "ingest-" + UUID.randomUUID().toString().substring(0, 8);
    master = new RuleMaster(zookeeper, settings.protocolConfig(), id);
    master.start();
    // The detector already rests each tenant between proposals; no further rate limit here.
    proposer = new RuleProposer(zookeeper, settings.protocolConfig(), id, Duration.ZERO);
    proposer.start();
    submitter = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "rule-proposals");
      thread.setDaemon(true);
      return thread;
    });
    // LogStore's tables start from the monitored load; the initial rules are dynamic secondary hashing's.
    if (proposer.ruleList().size() == 0 && settings.policy().kind() == PolicySpec.Kind.DYNAMIC) {
      CompletableFuture.runAsync(this::proposeInitialRules);
    }
    proposed = getRuntimeContext().getMetricGroup().counter("rulesProposed");
    committed = getRuntimeContext().getMetricGroup().counter("rulesCommitted");
    aborted = getRuntimeContext().getMetricGroup().counter("rulesAborted");
  }

  private void proposeInitialRules() {
    try (ShardPlacement placement = settings.openPlacement()) {
      Map<Long, Long> storage = StorageShares.rowsPerTenant(placement, settings.tls().clientTls());
      BalancePlanner planner = BalancePlanner.builder(settings.placement().numShards())
          .maxTenantShareOfShard(settings.balancer().maxTenantShareOfShard()).build();
      for (Rule rule : planner.initialRules(storage, 0)) {
        RoundOutcome outcome = proposer.submit(new RuleRequest(rule.tenants(), rule.offsetSize(), false,
            "initial rule from storage shares")).get(settings.balancer().effectiveDelayMs() * 3,
            TimeUnit.MILLISECONDS);
        LOG.info("initial rule for {} tenants at L={}: {}", rule.tenants().length, rule.offsetSize(), outcome);
      }
    } catch (Exception e) {
      LOG.warn("no initial rules from storage shares: {}", e.toString());
    }
  }

  @Override
  public void asyncInvoke(RuleProposal proposal, ResultFuture<RuleProposal> result) {
    proposed.inc();
    // Submitting writes to ZooKeeper, which may be away for a while: never on the task thread.
    CompletableFuture.supplyAsync(() -> {
      try {
        RuleRequest request = proposal.getProposedTable() != null
            ? RuleRequest.table(ShardTable.fromAvro(proposal.getProposedTable()), proposal.getTenantId())
            : proposal.getCoolDown()
                ? RuleRequest.coolDown(proposal.getProposedOffsetSize(), proposal.getTenantId())
                : RuleRequest.grow(proposal.getProposedOffsetSize(), proposal.getTenantId());
        return proposer.submit(request.because(proposal.getReason()));
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    }, submitter).thenCompose(decision -> decision).whenComplete((outcome, failure) -> {
      RuleProposal.Builder decided = RuleProposal.newBuilder(proposal);
      if (failure != null) {
        decided.setOutcome(ProposalOutcome.ABORTED).setOutcomeReason("proposal failed: " + failure);
        aborted.inc();
      } else if (outcome.status() == RoundOutcome.Status.COMMITTED) {
        decided.setOutcome(ProposalOutcome.COMMITTED).setEffectiveTime(outcome.rule().effectiveTime())
            .setOutcomeReason(outcome.toString());
        committed.inc();
      } else {
        decided.setOutcome(ProposalOutcome.ABORTED).setOutcomeReason(outcome.toString());
        aborted.inc();
      }
      result.complete(List.of(decided.build()));
    });
  }

  /**
   * No decision within 3T (ZooKeeper away, say): the proposal is reported aborted, and the job goes on; the detector
   * proposes again if the tenant stays hot. A round decided later still applies, through the rule list.
   */
  @Override
  public void timeout(RuleProposal proposal, ResultFuture<RuleProposal> result) {
    aborted.inc();
    result.complete(List.of(RuleProposal.newBuilder(proposal).setOutcome(ProposalOutcome.ABORTED)
        .setOutcomeReason("no decision within " + settings.balancer().effectiveDelayMs() * 3 + " ms (3T)")
        .build()));
  }

  @Override
  public void close() throws Exception {
    if (submitter != null) {
      submitter.shutdownNow();
    }
    if (proposer != null) {
      proposer.close();
    }
    if (master != null) {
      master.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
