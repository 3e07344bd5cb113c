package io.evenkeel.ingest.fold;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.AvroTrust;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Per-row folding, the job's write batching window: the changes of one row that arrive within one window fold into
 * one change with the row's final state (INSERT + UPDATE* → one upsert; ... + DELETE → one delete); a change not
 * newer than the pending one is dropped, as the shard would ignore it.
 *
 * <p>The window is a bundle held in memory, not in Flink state (as Flink SQL's mini-batch operators do): it is sent
 * whole every {@code windowMs}, when it holds {@link #MAX_PENDING_ROWS} rows, and before every checkpoint barrier, so
 * a completed checkpoint covers only changes the sink has had acknowledged (it waits for them at the barrier) and a
 * restore loses nothing. Sent whole and in the order rows first arrived, a partition's changes reach the sink in the
 * order of their first offsets, which the sink's written offsets rely on. It needs no {@code keyBy} either: every
 * change of a row comes through one Kafka partition (producers key by tenant and row), hence through one subtask of
 * this chain, in order; changes of a row that a producer spread over partitions are not folded, and the shards'
 * versions order them.
 */
public final class ChangeFolder extends AbstractStreamOperator<RoutedChange>
    implements OneInputStreamOperator<RoutedChange, RoutedChange> {
  /** Bounds the bundle's memory when one window brings more distinct rows than usual. */
  static final int MAX_PENDING_ROWS = 100_000;

  private record Row(long tenant, long row) {}

  private final long windowMs;
  private transient Map<Row, RoutedChange> pending;
  private transient Counter folded;

  public ChangeFolder(long windowMs) {
    this.windowMs = windowMs;
  }

  @Override
  public void open() throws Exception {
    super.open();
    AvroTrust.install();
    pending = new LinkedHashMap<>();
    folded = getMetricGroup().counter("foldedChanges");
    getProcessingTimeService().scheduleWithFixedDelay(time -> sendPending(), windowMs, windowMs);
  }

  @Override
  public void processElement(StreamRecord<RoutedChange> element) {
    // Upstream operators make a new change per record, so keeping the instance is safe under object reuse.
    RoutedChange next = element.getValue();
    Row row = new Row(next.change.getTenantId(), next.change.getRowId());
    RoutedChange current = pending.putIfAbsent(row, next);
    if (current == null) {
      if (pending.size() >= MAX_PENDING_ROWS) {
        sendPending();
      }
      return;
    }
    folded.inc();
    // Either way the pending change now stands for the partition's offsets up to this one.
    pending.put(row, current.through(next.change.getVersion() > current.change.getVersion()
        ? Changes.fold(current.change, next.change) : current.change, next.lastOffset));
  }

  /** Before the barrier goes downstream: what this checkpoint covers must reach the sink first. */
  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    sendPending();
  }

  @Override
  public void finish() throws Exception {
    sendPending();
    super.finish();
  }

  private void sendPending() {
    for (RoutedChange change : pending.values()) {
      output.collect(new StreamRecord<>(change, change.change.getModifiedTime()));
    }
    pending.clear();
  }
}
