package io.evenkeel.shard.index;

import io.evenkeel.schemas.TransactionLogChange;

/**
 * What the shard holds for a row id: the newest version written and either the row or, for a delete, a tombstone.
 *
 * @param row the full row (null for a tombstone)
 * @param source the row's stored bytes (null for a tombstone)
 */
public record StoredRow(long version, boolean deleted, TransactionLogChange row, byte[] source) {
  static StoredRow tombstone(long version) {
    return new StoredRow(version, true, null, null);
  }
}
