package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import java.io.Serializable;

/** How a Kafka record's value holds a change: Evenkeel's own Avro single-object encoding, or a CDC event. */
public interface RecordFormat extends Serializable {
  /**
   * The change the value holds. Throws {@link MalformedRecordException} or {@link IllegalArgumentException} with the
   * reason when it holds none that can be indexed.
   */
  TransactionLogChange decode(byte[] value) throws MalformedRecordException;

  /** Whether the value is the change's single-object encoding, which the sink copies instead of encoding again. */
  boolean singleObject();
}
