package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.MalformedRecordException;
import java.util.Properties;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Decodes changes ({@link RecordFormat}: Avro single-object changes, or CDC events) and checks them ({@link
 * Changes#validate}, and a creation time at most {@code maxAheadMs} ahead of this clock); anything undecodable or
 * invalid goes to the dead-letter topic with the reason, and the job goes on. So nothing that cannot be routed or
 * indexed gets further: a row from far ahead would make routing wait on the clock, a value Lucene refuses would fail
 * its shard's write after the translog has it.
 *
 * <p>A dead letter is sent at once, and the next change is passed on only once Kafka has it (and a checkpoint waits
 * for it too): the sink counts a partition's offsets as written up to the changes it has seen acknowledged, so a
 * dead letter behind them must be in Kafka first, or a crash would lose it. Only a change right after dead letters
 * waits, once for all of them.
 */
public final class ChangeDecoder extends ProcessFunction<RawRecord, SourcedChange> implements CheckpointedFunction {
  private final long maxAheadMs;
  private final RecordFormat format;
  private final Properties kafkaProperties;
  private final String deadLetterTopic;

  private transient Counter deadLetterCount;
  private transient DeadLetters deadLetters;

  /**
   * @param maxAheadMs how far ahead of this clock a row's creation time may be (the rule protocol's delay T)
   * @param kafkaProperties the job's Kafka client properties, bootstrap servers included
   */
  public ChangeDecoder(long maxAheadMs, RecordFormat format, Properties kafkaProperties, String deadLetterTopic) {
    this.maxAheadMs = maxAheadMs;
    this.format = format;
    this.kafkaProperties = kafkaProperties;
    this.deadLetterTopic = deadLetterTopic;
  }

  @Override
  public void open(OpenContext context) {
    AvroTrust.install();
    deadLetterCount = getRuntimeContext().getMetricGroup().counter("deadLetters");
    Properties properties = new Properties();
    properties.putAll(kafkaProperties);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Waited for by the next change: sent at once, not when a batch fills.
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    deadLetters = new DeadLetters(new KafkaProducer<>(properties, new ByteArraySerializer(),
        new ByteArraySerializer()), deadLetterTopic);
  }

  @Override
  public void processElement(RawRecord record, Context context, Collector<SourcedChange> out) throws Exception {
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
      deadLetterCount.inc();
      deadLetters.send(new DeadLetter(record, e.getMessage()));
      return;
    }
    deadLetters.awaitAll();
    out.collect(new SourcedChange(change, format.singleObject() ? record.value : null, record.topic,
        record.partition, record.offset));
  }

  /** A checkpoint holds the source's offsets past the dead letters: they must be in Kafka by then. */
  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    deadLetters.awaitAll();
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {
    // No state of its own: what it sent is in Kafka, what it did not is read again after a restore.
  }

  @Override
  public void close() throws Exception {
    if (deadLetters != null) {
      try {
        deadLetters.awaitAll();
      } finally {
        deadLetters.close();
      }
    }
  }
}
