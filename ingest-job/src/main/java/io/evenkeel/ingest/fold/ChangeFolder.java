package io.evenkeel.ingest.fold;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.AvroTrust;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per-row folding, the job's write batching window: the changes of one row (keyed by tenant and row) that arrive
 * within {@code windowMs} of its first one fold into one change with the row's final state (INSERT + UPDATE* → one
 * upsert; ... + DELETE → one delete). A change not newer than the pending one is dropped, as the shard would ignore
 * it. The pending change is keyed state and its timer is checkpointed, so a restore loses nothing.
 */
public final class ChangeFolder extends KeyedProcessFunction<Tuple2<Long, Long>, RoutedChange, RoutedChange> {
  private final long windowMs;
  private transient ValueState<RoutedChange> pending;
  private transient Counter folded;

  public ChangeFolder(long windowMs) {
    this.windowMs = windowMs;
  }

  @Override
  public void open(OpenContext context) {
    AvroTrust.install();
    pending = getRuntimeContext().getState(new ValueStateDescriptor<>("pending-change", RoutedChange.class));
    folded = getRuntimeContext().getMetricGroup().counter("foldedChanges");
  }

  @Override
  public void processElement(RoutedChange next, Context context, Collector<RoutedChange> out) throws Exception {
    RoutedChange current = pending.value();
    if (current == null) {
      // A copy: with object reuse, the network input may hand the same instance again for the next record.
      pending.update(new RoutedChange(next.shard, next.hot, TransactionLogChange.newBuilder(next.change).build()));
      context.timerService().registerProcessingTimeTimer(context.timerService().currentProcessingTime() + windowMs);
      return;
    }
    folded.inc();
    if (next.change.getVersion() > current.change.getVersion()) {
      pending.update(new RoutedChange(next.shard, next.hot, Changes.fold(current.change, next.change)));
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext context, Collector<RoutedChange> out) throws Exception {
    RoutedChange current = pending.value();
    if (current != null) {
      out.collect(current);
      pending.clear();
    }
  }
}
