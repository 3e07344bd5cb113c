package io.evenkeel.ingest;

import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.SerializationSchema;

/** Writes Avro records to Kafka as single-object messages (schema fingerprint, no registry). */
public final class AvroMessages<T extends SpecificRecord> implements SerializationSchema<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private transient SingleObjectCodec<T> codec;

  public AvroMessages(Class<T> type) {
    this.type = type;
  }

  @Override
  public void open(InitializationContext context) {
    AvroTrust.install();
    codec = SingleObjectCodec.of(type);
  }

  @Override
  public byte[] serialize(T record) {
    return codec.encode(record);
  }
}
