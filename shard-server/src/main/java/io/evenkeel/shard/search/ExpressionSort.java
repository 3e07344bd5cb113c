package io.evenkeel.shard.search;

import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.expr.CompiledExpression;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.TableRow;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.FieldComparator;
import org.apache.lucene.search.FieldComparatorSource;
import org.apache.lucene.search.LeafFieldComparator;
import org.apache.lucene.search.Pruning;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.SortField;

/**
 * An ORDER BY key that is an expression ({@code ORDER BY price * quantity DESC}, {@code ORDER BY LOWER(seller_nick)}):
 * evaluated on each matching row, read where {@link RowSource} says, with the query's time zone and text bound, and
 * compared by the order the query service merges with ({@link SqlValues#compareNullsLowest}: NULL lowest, decimals
 * by the digits they show), so the top hits of every shard merge exactly. A row's value is computed once however
 * often the queue compares it. The values the queue holds are reserved against the query's memory as the queue
 * grows (its largest size so far: a value that leaves the queue frees room for the next), so an ORDER BY of a long
 * text over a large LIMIT is refused before it fills the heap.
 */
final class ExpressionSort extends FieldComparatorSource {
  private final Expr expression;
  private final RowConditions conditions;
  private final RowSource source;
  private final MemoryBudget.Reservation memory;

  private ExpressionSort(Expr expression, RowConditions conditions, MemoryBudget.Reservation memory) {
    this.expression = expression;
    this.conditions = conditions;
    this.source = RowSource.of(List.of(expression));
    this.memory = memory;
  }

  /** The sort field of {@code expression}, ascending or descending (NULLs first ascending, last descending). */
  static SortField of(Expr expression, boolean descending, RowConditions conditions,
      MemoryBudget.Reservation memory) {
    return new SortField(expression.toString(), new ExpressionSort(expression, conditions, memory), descending);
  }

  @Override
  public FieldComparator<Object> newComparator(String field, int numHits, Pruning pruning, boolean reversed) {
    Object[] slots = new Object[numHits];
    return new FieldComparator<>() {
      private Object top;
      /** The queue's lowest entry's value: kept here, not per segment, as Lucene sets it once for later segments. */
      private Object bottom;
      /** The bytes of the values in the slots now, and the most they have held (what is reserved). */
      private long held;
      private long reserved;

      private void hold(int slot, Object value) {
        held += ValueBytes.of(value) - ValueBytes.of(slots[slot]);
        slots[slot] = value;
        if (held > reserved) {
          memory.reserve(held - reserved, () -> String.format("the ORDER BY values of %,d top hits (%,d bytes)",
              numHits, held));
          reserved = held;
        }
      }

      @Override
      public int compare(int slot1, int slot2) {
        return SqlValues.compareNullsLowest(slots[slot1], slots[slot2]);
      }

      @Override
      public void setTopValue(Object value) {
        top = value;
      }

      @Override
      public Object value(int slot) {
        return slots[slot];
      }

      @Override
      public int compareValues(Object first, Object second) {
        return SqlValues.compareNullsLowest(first, second);
      }

      @Override
      public LeafFieldComparator getLeafComparator(LeafReaderContext context) throws IOException {
        RowSource.Rows rows = source.open(context.reader());
        CompiledExpression compiled = conditions.evaluator().compile(expression);
        return new LeafFieldComparator() {
          private int lastDoc = -1;
          private Object lastValue;

          private Object valueOf(int doc) throws IOException {
            if (doc != lastDoc) {
              TableRow row = rows.row(doc);
              lastValue = row == null ? null : compiled.eval(row);
              lastDoc = doc;
            }
            return lastValue;
          }

          @Override
          public void setBottom(int slot) {
            bottom = slots[slot];
          }

          @Override
          public int compareBottom(int doc) throws IOException {
            return SqlValues.compareNullsLowest(bottom, valueOf(doc));
          }

          @Override
          public int compareTop(int doc) throws IOException {
            return SqlValues.compareNullsLowest(top, valueOf(doc));
          }

          @Override
          public void copy(int slot, int doc) throws IOException {
            hold(slot, valueOf(doc));
          }

          @Override
          public void setScorer(Scorable scorer) {}
        };
      }
    };
  }

  @Override
  public String toString() {
    return "expression " + expression;
  }
}
