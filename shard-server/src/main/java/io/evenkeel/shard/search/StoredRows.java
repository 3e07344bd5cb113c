package io.evenkeel.shard.search;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.shard.index.IndexFields;
import java.io.IOException;
import java.util.Set;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.util.BytesRef;

/** A document's row as the shard stored it, for the queries that test what no index holds. */
final class StoredRows {
  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);
  private static final Set<String> SOURCE_ONLY = Set.of(IndexFields.SOURCE);
  /** About what reading and decoding one stored row costs, in the units of Lucene's match costs. */
  static final float MATCH_COST = 1_000;

  private StoredRows() {}

  /** The row of segment document {@code doc}, or null for a tombstone. */
  static TransactionLogChange read(StoredFields stored, int doc) throws IOException {
    BytesRef source = stored.document(doc, SOURCE_ONLY).getBinaryValue(IndexFields.SOURCE);
    if (source == null) {
      return null;
    }
    try {
      return ROWS.decode(BytesRef.deepCopyOf(source).bytes);
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("a stored row is unreadable: " + e.getMessage(), e);
    }
  }
}
