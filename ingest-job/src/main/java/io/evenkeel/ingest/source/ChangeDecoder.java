package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.MalformedRecordException;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes changes ({@link RecordFormat}: Avro single-object changes, or CDC events) and checks them ({@link Changes#validate}, and a creation time at most {@code
 * maxAheadMs} ahead of this clock); anything undecodable or invalid goes to {@link #DEAD_LETTERS} with the reason, and
 * the job goes on. So nothing that cannot be routed or indexed gets further: a row from far ahead would make routing
 * wait on the clock, a value Lucene refuses would fail its shard's write after the translog has it.
 */
public final class ChangeDecoder extends ProcessFunction<RawRecord, SourcedChange> {
  public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

  private final long maxAheadMs;
  private final RecordFormat format;

  private transient Counter deadLetters;

  /** @param maxAheadMs how far ahead of this clock a row's creation time may be (the rule protocol's delay T) */
  public ChangeDecoder(long maxAheadMs, RecordFormat format) {
    this.maxAheadMs = maxAheadMs;
    this.format = format;
  }

  @Override
  public void open(OpenContext context) {
    AvroTrust.install();
    deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
  }

  @Override
  public void processElement(RawRecord record, Context context, Collector<SourcedChange> out) {
    TransactionLogChange change;
    try {
      change = format.decode(record.value);
      Changes.validate(change);
      long ahead = change.getCreatedTime() - System.currentTimeMillis();
      if (ahead > maxAheadMs) {
        throw new IllegalArgumentException(Changes.describe(change) + ": created_time " + change.getCreatedTime()
            + " is " + ahead + " ms ahead of the ingest job's clock; at most " + maxAheadMs);
      }
    } catch (MalformedRecordException | IllegalArgumentException e) {
      deadLetters.inc();
      context.output(DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
      return;
    }
    out.collect(new SourcedChange(change, format.singleObject() ? record.value : null, record.topic,
        record.partition, record.offset));
  }
}
