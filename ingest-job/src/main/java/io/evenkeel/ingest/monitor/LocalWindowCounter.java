package io.evenkeel.ingest.monitor;

import io.evenkeel.ingest.route.RoutedChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Counts writes per tenant and per shard in tumbling event-time windows, locally in each parallel instance, and
 * emits the partial counts when the watermark closes a window: the keyBy after it sees one record per tenant and
 * window per instance, so a hot tenant cannot overload the subtask its key lands on. Open windows are operator state.
 */
public final class LocalWindowCounter extends AbstractStreamOperator<WindowCount>
    implements OneInputStreamOperator<RoutedChange, WindowCount> {
  private final long windowMs;
  /** window start → (kind, key) packed → count. */
  private final Map<Long, Map<Key, long[]>> open = new HashMap<>();
  private transient ListState<WindowCount> checkpointed;

  private record Key(int kind, long key) {}

  public LocalWindowCounter(long windowMs) {
    this.windowMs = windowMs;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    checkpointed = context.getOperatorStateStore()
        .getListState(new ListStateDescriptor<>("open-window-counts", WindowCount.class));
    for (WindowCount count : checkpointed.get()) {
      add(count.windowStart, count.kind, count.key, count.count);
    }
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    List<WindowCount> counts = new ArrayList<>();
    open.forEach((window, keys) -> keys.forEach((key, count) ->
        counts.add(new WindowCount(window, key.kind, key.key, count[0]))));
    checkpointed.update(counts);
  }

  @Override
  public void processElement(StreamRecord<RoutedChange> element) {
    long timestamp = element.getTimestamp();
    long window = timestamp - Math.floorMod(timestamp, windowMs);
    add(window, WindowCount.TENANT, element.getValue().change.getTenantId(), 1);
    add(window, WindowCount.SHARD, element.getValue().shard, 1);
  }

  private void add(long window, int kind, long key, long count) {
    open.computeIfAbsent(window, w -> new HashMap<>()).computeIfAbsent(new Key(kind, key), k -> new long[1])[0] +=
        count;
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    emitWindowsEndingBy(mark.getTimestamp());
    super.processWatermark(mark);
  }

  @Override
  public void finish() throws Exception {
    emitWindowsEndingBy(Long.MAX_VALUE);
    super.finish();
  }

  private void emitWindowsEndingBy(long watermark) {
    for (Iterator<Map.Entry<Long, Map<Key, long[]>>> it = open.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Map<Key, long[]>> window = it.next();
      long last = window.getKey() + windowMs - 1;
      if (last <= watermark) {
        window.getValue().forEach((key, count) -> output.collect(
            new StreamRecord<>(new WindowCount(window.getKey(), key.kind, key.key, count[0]), last)));
        it.remove();
      }
    }
  }
}
