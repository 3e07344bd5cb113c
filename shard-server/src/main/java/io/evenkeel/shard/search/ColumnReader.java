package io.evenkeel.shard.search;

import io.evenkeel.schemas.table.Column;
import java.io.IOException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;

/** Reads one column's value of a segment's documents from doc values: a Long, a String, or null for NULL. */
interface ColumnReader {
  /** {@code doc}s must come in increasing order. */
  Object read(int doc) throws IOException;

  static ColumnReader of(LeafReader reader, Column column) throws IOException {
    if (column.isNumeric()) {
      NumericDocValues values = DocValues.getNumeric(reader, column.name());
      return doc -> values.advanceExact(doc) ? (Object) values.longValue() : null;
    }
    SortedDocValues values = DocValues.getSorted(reader, column.name());
    return doc -> values.advanceExact(doc) ? values.lookupOrd(values.ordValue()).utf8ToString() : null;
  }
}
