package io.evenkeel.ingest.sink;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.settings.SinkSettings;
import io.evenkeel.schemas.codec.AvroTrust;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard sink's writer: hands each change to its shard's lane ({@link ShardLanes}, which batches them and sends
 * the batches through the {@link ShardWriteClient}), sends lanes that waited {@code sinkLingerMs} from a timer, and at
 * a checkpoint keeps what no shard has acknowledged yet as its state instead of waiting for it (at the end of the
 * input it does wait). A write that failed for good fails the next {@link #write} or {@link #flush} with its
 * IOException; changes a shard refused are dead-lettered ({@link RefusedChanges}). From the same timer it publishes the written offsets ({@link WrittenOffsets},
 * {@link WrittenOffsetsPublisher}).
 */
final class ShardSinkWriter implements StatefulSinkWriter<RoutedChange, PendingChanges> {
  private static final Logger LOG = LoggerFactory.getLogger(ShardSinkWriter.class);
  /** How often the written offsets are published, at most. */
  private static final long PUBLISH_INTERVAL_MS = 100;

  private final ProcessingTimeService time;
  private final long lingerMs;
  private final ShardPlacement placement;
  private final ShardWriteClient client;
  private final RefusedChanges refusedChanges;
  private final ShardLanes lanes;
  /** The lanes' spill files and those a restored checkpoint named. */
  private final SpillFiles spills;
  private final MonitoredHotTenants hotTenants;
  /** Null without the fast path ({@code --sink-surge-changes 0}). */
  private final SurgingTenants surging;
  private final WrittenOffsetsPublisher written;
  private long nextPublish;

  /** With the changes a restored checkpoint held unacknowledged: they are sent again first, in their order. */
  ShardSinkWriter(IngestSettings settings, WriterInitContext context, Collection<PendingChanges> recovered) {
    AvroTrust.install();
    this.time = context.getProcessingTimeService();
    SinkSettings sink = settings.sink();
    this.lingerMs = sink.lingerMs();
    try {
      this.placement = settings.openPlacement();
    } catch (Exception e) {
      throw new IllegalStateException("cannot follow the shard placement: " + e.getMessage(), e);
    }
    ShardAddress[] primaries = primaries(placement);
    String sender = "ingest-" + context.getTaskInfo().getIndexOfThisSubtask() + "-" + UUID.randomUUID();
    this.client = new ShardWriteClient(placement, sender, sink.requestTimeoutMs(), settings.tls().clientTls());
    this.refusedChanges = new RefusedChanges(settings.kafka().clientProperties(), settings.kafka().deadLetterTopic());
    double hotShare = settings.hotShareThreshold();
    double coolBand = settings.balancer().coolBand();
    this.hotTenants = new MonitoredHotTenants(hotShare, coolBand * hotShare);
    this.surging = sink.lanes() && sink.surgeChanges() > 0
        ? new SurgingTenants(hotShare, coolBand * hotShare, sink.surgeChanges()) : null;
    this.spills = new SpillFiles(sink.spillDir() == null ? null : Path.of(sink.spillDir()),
        context.getTaskInfo().getIndexOfThisSubtask(), !recovered.isEmpty());
    this.lanes = new ShardLanes(settings.placement().numShards(), new ShardLanes.Bounds(sink.batchSize(),
        sink.batchBytes(), sink.laneBuffer(), sink.hotBuffer(), sink.laneBufferBytes(), sink.spillAfterMs(),
        sink.spillBytes()),
        lingerMs, time::getCurrentProcessingTime, client, refusedChanges,
        new SinkMetrics(context.metricGroup(), primaries),
        surging == null ? hotTenants : tenant -> hotTenants.test(tenant) || surging.test(tenant), spills);
    this.written = new WrittenOffsetsPublisher(settings.kafka().clientProperties(),
        settings.kafka().writtenOffsetsGroup(), sender);
    try {
      long changes = 0;
      long spilled = 0;
      for (PendingChanges pending : recovered) {
        changes += pending.changes().size();
        spilled += pending.spilled().stream().mapToLong(LaneSpill.Range::count).sum();
        for (RoutedChange change : pending.changes()) {
          lanes.add(change);
        }
      }
      if (changes + spilled > 0) {
        LOG.info("sending again the {} changes the checkpoint holds and the {} it names in spill files", changes,
            spilled);
      }
      for (PendingChanges pending : recovered) {
        for (LaneSpill.Range range : pending.spilled()) {
          LaneSpill.read(range, lanes::add);
          spills.retire(Path.of(range.file()));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while resending the checkpoint's unacknowledged changes", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resend the checkpoint's unacknowledged changes: " + e.getMessage(), e);
    }
    if (sink.lanes()) {
      hotTenants.follow(settings.kafka().clientProperties(), settings.kafka().summaryTopic(), sender + "-hot-tenants");
    }
    scheduleLinger();
  }

  /** Each shard's primary now (the metrics' server of each shard). */
  private static ShardAddress[] primaries(ShardPlacement placement) {
    ShardAddress[] primaries = new ShardAddress[placement.numShards()];
    for (int shard = 0; shard < primaries.length; shard++) {
      int s = shard;
      primaries[shard] = placement.primaryOf(shard).orElseThrow(() -> new IllegalArgumentException(
          "no shard server is placed for shard " + s));
    }
    return primaries;
  }

  @Override
  public void write(RoutedChange routed, Context context) throws IOException, InterruptedException {
    lanes.checkFailure();
    if (surging != null) {
      surging.count(routed.change.getTenantId(), time.getCurrentProcessingTime());
    }
    lanes.add(routed);
  }

  /**
   * At a checkpoint: sends what lanes can send now, without waiting ({@link #snapshotState} keeps the rest). At the
   * end of the input: sends everything and waits for every acknowledgement.
   */
  @Override
  public void flush(boolean endOfInput) throws IOException, InterruptedException {
    if (endOfInput) {
      lanes.flush();
    } else {
      lanes.sendReady();
    }
    lanes.checkFailure();
    written.publish(lanes.advanceWritten());
  }

  @Override
  public List<PendingChanges> snapshotState(long checkpointId) throws IOException {
    List<PendingChanges> state = List.of(lanes.unacknowledged());
    // A request that failed for good is no longer among the unacknowledged: this checkpoint must not complete.
    lanes.checkFailure();
    spills.snapshotTaken(); // files read back before the last few checkpoints are named by none that may be restored
    return state;
  }

  private void scheduleLinger() {
    time.registerTimer(time.getCurrentProcessingTime() + lingerMs, now -> {
      if (!lanes.failed()) {
        lanes.sendLingering(now);
        if (now >= nextPublish) {
          written.publish(lanes.advanceWritten());
          nextPublish = now + PUBLISH_INTERVAL_MS;
        }
      }
      scheduleLinger();
    });
  }

  @Override
  public void close() {
    lanes.close();
    hotTenants.close();
    written.close();
    client.close();
    refusedChanges.close();
    placement.close();
  }
}
