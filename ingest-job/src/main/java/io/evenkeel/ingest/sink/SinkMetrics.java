package io.evenkeel.ingest.sink;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.ingest.route.RoutedChange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;

/**
 * The sink's metrics: changes and batches sent, changes sent per shard ({@code changesSent} of the normal lane,
 * {@code hotChangesSent} of the hot lane) and per shard server, {@code changesRefused} (by their shard, and so
 * dead-lettered), {@code lastAckDelayMs}, from the last acknowledged batch's newest change to its
 * acknowledgement, and per shard how far its writes are behind: {@code behindChanges} (in flight, buffered and
 * spilled) and {@code spilledChanges} (waiting on disk while the shard is stalled). Thread-safe: acknowledgements arrive on gRPC threads.
 */
final class SinkMetrics {
  private final Counter changesSent;
  private final Counter batchesSent;
  private final Counter changesRefused;
  private final AtomicLong lastAckDelayMs = new AtomicLong();
  /** By shard, then normal (0) or hot (1) lane. */
  private final Counter[][] laneChangesSent;
  /** By shard: the counter of its primary's server, shared by the server's shards. */
  private final Counter[] serverChangesSent;
  private final MetricGroup[] shardGroups;

  /** @param primaries each shard's primary, by shard */
  SinkMetrics(MetricGroup group, ShardAddress[] primaries) {
    this.changesSent = group.counter("changesSent", new ThreadSafeSimpleCounter());
    this.batchesSent = group.counter("batchesSent", new ThreadSafeSimpleCounter());
    this.changesRefused = group.counter("changesRefused", new ThreadSafeSimpleCounter());
    group.gauge("lastAckDelayMs", lastAckDelayMs::get);
    this.laneChangesSent = new Counter[primaries.length][2];
    this.serverChangesSent = new Counter[primaries.length];
    this.shardGroups = new MetricGroup[primaries.length];
    Map<ShardAddress, Counter> perServer = new HashMap<>();
    for (int shard = 0; shard < primaries.length; shard++) {
      serverChangesSent[shard] = perServer.computeIfAbsent(primaries[shard], a -> group.addGroup("server", a.toString())
          .counter("changesSent", new ThreadSafeSimpleCounter()));
      MetricGroup shardGroup = group.addGroup("shard", Integer.toString(shard));
      shardGroups[shard] = shardGroup;
      laneChangesSent[shard][0] = shardGroup.counter("changesSent", new ThreadSafeSimpleCounter());
      laneChangesSent[shard][1] = shardGroup.counter("hotChangesSent", new ThreadSafeSimpleCounter());
    }
  }

  /** Registers the shard's gauges of how many changes wait for it, and how many of those on disk. */
  void behind(int shard, Gauge<Long> behind, Gauge<Long> spilled) {
    shardGroups[shard].gauge("behindChanges", behind);
    shardGroups[shard].gauge("spilledChanges", spilled);
  }

  /** Counts a batch the shard acknowledged, sent from its normal or hot lane. */
  void acknowledged(int shard, boolean hot, List<RoutedChange> changes) {
    if (changes.isEmpty()) {
      return;
    }
    lastAckDelayMs.set(System.currentTimeMillis() - changes.get(changes.size() - 1).change.getModifiedTime());
    laneChangesSent[shard][hot ? 1 : 0].inc(changes.size());
    serverChangesSent[shard].inc(changes.size());
    changesSent.inc(changes.size());
    batchesSent.inc();
  }

  /** Counts changes a shard refused (sent to the dead-letter topic). */
  void refused(int count) {
    changesRefused.inc(count);
  }
}
