package io.evenkeel.shard.index;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.document.BinaryPoint;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * The index layout of a row. Numbers and times: a point (filters) and numeric doc values (sort, scan, aggregates);
 * keywords: a term and sorted doc values; the title: analyzed text; the whole row once, as stored bytes. A NULL is an
 * absent field.
 */
public final class RowDocuments {
  private RowDocuments() {}

  /** The document of a live row, without attribute fields. */
  public static Document row(RowKey key, TransactionLogChange row, byte[] source, long seqNo) {
    return row(key, row, source, seqNo, Set.of());
  }

  /**
   * The document of a live row; each of {@code hotAttributes} the row has becomes a keyword field {@code attr.<key>}
   * (term and sorted doc values), the first occurrence of the key in {@code attributes} winning, and the document is
   * marked as indexed for each of them ({@link IndexFields#HOT_KEYS}).
   */
  public static Document row(RowKey key, TransactionLogChange row, byte[] source, long seqNo,
      Set<String> hotAttributes) {
    Document doc = new Document();
    addIdentity(doc, key, row.getVersion(), seqNo);
    for (Column column : TransactionLogsTable.COLUMNS) {
      Object value = row.get(column.name());
      if (value == null) {
        continue;
      }
      String name = column.name();
      switch (column.type()) {
        case LONG, INT, DECIMAL -> {
          long number = toLong(column, value);
          doc.add(new LongPoint(name, number));
          doc.add(new NumericDocValuesField(name, number));
        }
        case KEYWORD -> {
          String text = value.toString();
          doc.add(new StringField(name, text, Field.Store.NO));
          doc.add(new SortedDocValuesField(name, new BytesRef(text)));
        }
        case TEXT -> doc.add(new TextField(name, value.toString(), Field.Store.NO));
        case ATTRIBUTES -> addHotAttributes(doc, value.toString(), hotAttributes);
      }
    }
    addHotKeys(doc, hotAttributes);
    doc.add(new BinaryPoint(IndexFields.TENANT_CREATED, tenantCreated(row.getTenantId(), row.getCreatedTime())));
    doc.add(new StoredField(IndexFields.SOURCE, source));
    return doc;
  }

  private static void addHotAttributes(Document doc, String attributes, Set<String> hotAttributes) {
    if (hotAttributes.isEmpty()) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (String pair : attributes.split(";")) {
      int colon = pair.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = pair.substring(0, colon);
      if (hotAttributes.contains(name) && seen.add(name)) {
        String text = pair.substring(colon + 1);
        doc.add(new StringField(IndexFields.ATTRIBUTE_PREFIX + name, text, Field.Store.NO));
        doc.add(new SortedDocValuesField(IndexFields.ATTRIBUTE_PREFIX + name, new BytesRef(text)));
      }
    }
  }

  /**
   * The value of {@code key} in a row's {@code attributes} ({@code k:v;k:v}), the first occurrence winning, as the
   * index holds it; null when the row has no such key.
   */
  public static String attributeValue(String attributes, String key) {
    if (attributes == null) {
      return null;
    }
    for (String pair : attributes.split(";")) {
      int colon = pair.indexOf(':');
      if (colon > 0 && colon == key.length() && pair.startsWith(key)) {
        return pair.substring(colon + 1);
      }
    }
    return null;
  }

  /** The document that marks a deleted row, so that a stale insert cannot bring it back. */
  public static Document tombstone(RowKey key, long version, long seqNo) {
    return tombstone(key, version, seqNo, Set.of());
  }

  /**
   * A tombstone, marked for {@code hotAttributes} as rows are (it holds none of them): a segment whose every document
   * is marked for a key needs no scan for it.
   */
  public static Document tombstone(RowKey key, long version, long seqNo, Set<String> hotAttributes) {
    Document doc = new Document();
    addIdentity(doc, key, version, seqNo);
    doc.add(new StringField(IndexFields.TOMBSTONE, "T", Field.Store.NO));
    addHotKeys(doc, hotAttributes);
    return doc;
  }

  private static void addHotKeys(Document doc, Set<String> hotAttributes) {
    for (String key : hotAttributes) {
      doc.add(new StringField(IndexFields.HOT_KEYS, key, Field.Store.NO));
    }
  }

  /** A column value as the long the index holds: decimals unscaled at the table's scale. */
  public static long toLong(Column column, Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal.setScale(TransactionLogsTable.PRICE_SCALE, RoundingMode.UNNECESSARY).unscaledValue()
          .longValueExact();
    }
    return ((Number) value).longValue();
  }

  /** The composite (tenant_id, created_time) key: both longs in sortable big-endian form, one 16-byte dimension. */
  public static byte[] tenantCreated(long tenantId, long createdTime) {
    byte[] bytes = new byte[16];
    NumericUtils.longToSortableBytes(tenantId, bytes, 0);
    NumericUtils.longToSortableBytes(createdTime, bytes, 8);
    return bytes;
  }

  private static void addIdentity(Document doc, RowKey key, long version, long seqNo) {
    doc.add(new StringField(IndexFields.ID, key.toBytesRef(), Field.Store.NO));
    doc.add(new NumericDocValuesField(IndexFields.VERSION, version));
    doc.add(new NumericDocValuesField(IndexFields.SEQ_NO, seqNo));
  }
}
