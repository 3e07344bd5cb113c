package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes Avro single-object changes and checks them; anything undecodable or invalid goes to {@link #DEAD_LETTERS}
 * with the reason, and the job goes on.
 */
public final class ChangeDecoder extends ProcessFunction<RawRecord, SourcedChange> {
  public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

  private transient SingleObjectCodec<TransactionLogChange> codec;
  private transient Counter deadLetters;

  @Override
  public void open(OpenContext context) {
    AvroTrust.install();
    codec = SingleObjectCodec.of(TransactionLogChange.class);
    deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
  }

  @Override
  public void processElement(RawRecord record, Context context, Collector<SourcedChange> out) {
    TransactionLogChange change;
    try {
      change = codec.decode(record.value);
      Changes.validate(change);
    } catch (MalformedRecordException | IllegalArgumentException e) {
      deadLetters.inc();
      context.output(DEAD_LETTERS, new DeadLetter(record, e.getMessage()));
      return;
    }
    out.collect(new SourcedChange(change, record.value, record.topic, record.partition, record.offset));
  }
}
