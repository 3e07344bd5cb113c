package io.evenkeel.shard.search;

import io.evenkeel.expr.EpochDay;
import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;

/**
 * GROUP BY keys read as a long per document of a segment, which a segment's groups are found by ({@link
 * LongTupleMap}): a number's doc value, a keyword's ordinal in the segment, the day number of {@code
 * DATE(FROM_UNIXTIME(created_time / 1000))} ({@link EpochDay}). A group's key values are made from its codes once, at
 * the segment's end, instead of a value, a key object and a hash for each row; OpenSearch's {@code terms} aggregation
 * counts by ordinals in the same way.
 */
final class KeyCodes {
  private KeyCodes() {}

  /** One key's codes in one segment. */
  interface SegmentCodes {
    /** Sets {@code into[i]} to document {@code doc}'s code and returns true, or returns false for NULL. */
    boolean read(int doc, long[] into, int i) throws IOException;

    /** The key's value of {@code code}. */
    Object value(long code) throws IOException;
  }

  /** How a key's codes are read in each segment. */
  interface Key {
    SegmentCodes open(LeafReader reader) throws IOException;
  }

  /** A column named in GROUP BY: its values as the shard's answer holds them (a Long, a String). */
  static Key column(Column column) {
    return of(column, false);
  }

  /**
   * A key expression that can be read as codes, or null: a column with doc values (its values as SQL holds them, a
   * DECIMAL as a BigDecimal) or a day of a column's milliseconds.
   */
  static Key expression(Expr expression, Evaluator evaluator) {
    if (expression instanceof Expr.Column named) {
      Column column = TransactionLogsTable.column(named.name()).orElse(null);
      return column == null || !column.hasDocValues() ? null : of(column, true);
    }
    EpochDay epochDay = EpochDay.of(expression, evaluator);
    Column millis = epochDay == null ? null : TransactionLogsTable.column(epochDay.column()).orElse(null);
    if (millis == null || !millis.hasDocValues() || !millis.isNumeric()) {
      return null;
    }
    return reader -> {
      NumericDocValues values = DocValues.getNumeric(reader, millis.name());
      return new SegmentCodes() {
        @Override
        public boolean read(int doc, long[] into, int i) throws IOException {
          if (!values.advanceExact(doc)) {
            return false;
          }
          long day = epochDay.day(values.longValue());
          into[i] = day;
          return day != EpochDay.NULL;
        }

        @Override
        public Object value(long code) {
          return EpochDay.date(code);
        }
      };
    };
  }

  private static Key of(Column column, boolean sqlValues) {
    if (column.isNumeric()) {
      return reader -> {
        NumericDocValues values = DocValues.getNumeric(reader, column.name());
        return new SegmentCodes() {
          @Override
          public boolean read(int doc, long[] into, int i) throws IOException {
            if (!values.advanceExact(doc)) {
              return false;
            }
            into[i] = values.longValue();
            return true;
          }

          @Override
          public Object value(long code) {
            return sqlValues ? FieldValues.sqlValue(column, code) : (Object) code;
          }
        };
      };
    }
    return reader -> {
      SortedDocValues values = DocValues.getSorted(reader, column.name());
      return new SegmentCodes() {
        @Override
        public boolean read(int doc, long[] into, int i) throws IOException {
          if (!values.advanceExact(doc)) {
            return false;
          }
          into[i] = values.ordValue();
          return true;
        }

        @Override
        public Object value(long code) throws IOException {
          return values.lookupOrd((int) code).utf8ToString();
        }
      };
    };
  }
}
