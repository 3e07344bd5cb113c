package io.evenkeel.ingest.source;

import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes a dead letter as the original key and value, with the reason and origin in headers ({@code
 * evenkeel.reason}, {@code evenkeel.source}: topic/partition/offset), so the record can be fixed and replayed as is.
 */
public final class DeadLetterSerializer implements KafkaRecordSerializationSchema<DeadLetter> {
  public static final String REASON_HEADER = "evenkeel.reason";
  public static final String SOURCE_HEADER = "evenkeel.source";

  private final String topic;

  public DeadLetterSerializer(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(DeadLetter letter, KafkaSinkContext context, Long timestamp) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(new RecordHeader(REASON_HEADER, letter.reason.getBytes(StandardCharsets.UTF_8)));
    headers.add(new RecordHeader(SOURCE_HEADER,
        (letter.topic + "/" + letter.partition + "/" + letter.offset).getBytes(StandardCharsets.UTF_8)));
    return new ProducerRecord<>(topic, null, timestamp, letter.key, letter.value, headers);
  }
}
