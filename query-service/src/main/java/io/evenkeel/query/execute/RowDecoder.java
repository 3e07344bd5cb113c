package io.evenkeel.query.execute;

import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;

/** Reads the rows shards return (a {@link TransactionLogChange} in single-object encoding) as table rows. */
final class RowDecoder {
  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);

  private RowDecoder() {}

  static TableRow decode(byte[] bytes) {
    try {
      return TableRow.of(ROWS.decode(bytes));
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("a shard returned a row that is not a TransactionLogChange: " + e.getMessage(),
          e);
    }
  }
}
