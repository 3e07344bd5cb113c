package io.evenkeel.shard.index;

/** Names of the index fields that are not columns. Columns keep their SQL names. */
public final class IndexFields {
  /** The row id, (tenant_id, row_id) as 16 big-endian bytes: one live document per row. */
  public static final String ID = "_id";
  /** The version of the change that wrote the document (doc values). */
  public static final String VERSION = "_version";
  /** The shard sequence number of that change (doc values), for replication and recovery. */
  public static final String SEQ_NO = "_seq";
  /** Present on delete tombstones, which every search excludes. */
  public static final String TOMBSTONE = "_tomb";
  /** The whole row, once, as Avro single-object bytes. */
  public static final String SOURCE = "_source";
  /** Prefix of the keyword field of a hot attribute key: {@code attr.color} (frequency-based indexing). */
  public static final String ATTRIBUTE_PREFIX = "attr.";
  /**
   * One term per attribute key that was hot when the document was written: for such a key the document's {@code
   * attr.<key>} field is the whole truth (absent: the row has no such key); for any other key only the stored row
   * is.
   */
  public static final String HOT_KEYS = "_hot";
  /** Composite index over (tenant_id, created_time): one two-dimensional point. */
  public static final String TENANT_CREATED = "tenant_created";

  private IndexFields() {}
}
