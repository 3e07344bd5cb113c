package io.evenkeel.shard.index;

import java.nio.ByteBuffer;
import org.apache.lucene.util.BytesRef;

/** A row's identity, (tenant_id, row_id), and its 16-byte form in the {@link IndexFields#ID} field. */
public record RowKey(long tenantId, long rowId) {
  public BytesRef toBytesRef() {
    return new BytesRef(ByteBuffer.allocate(16).putLong(tenantId).putLong(rowId).array());
  }

  public static RowKey fromBytesRef(BytesRef ref) {
    ByteBuffer buffer = ByteBuffer.wrap(ref.bytes, ref.offset, ref.length);
    return new RowKey(buffer.getLong(), buffer.getLong());
  }

  @Override
  public String toString() {
    return tenantId + ":" + rowId;
  }
}
