package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;

/** Values in Avro's single-object encoding of {@code TransactionLogChange}, as Evenkeel's producers write them. */
public final class SingleObjectFormat implements RecordFormat {
  private static final long serialVersionUID = 1L;

  private transient SingleObjectCodec<TransactionLogChange> codec;

  @Override
  public TransactionLogChange decode(byte[] value) throws MalformedRecordException {
    if (codec == null) {
      codec = SingleObjectCodec.of(TransactionLogChange.class);
    }
    return codec.decode(value);
  }

  @Override
  public boolean singleObject() {
    return true;
  }
}
