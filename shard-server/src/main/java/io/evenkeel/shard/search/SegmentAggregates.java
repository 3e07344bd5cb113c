package io.evenkeel.shard.search;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.evenkeel.expr.Op;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.ExpressionCall;
import io.evenkeel.schemas.shard.Query;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;

/**
 * The groups an aggregation found in one segment, kept for the next request that asks the same of that segment. A
 * segment's documents never change: a delete or an update of one of its rows gives the segment a new reader, with a
 * new key, so what was found in it holds as long as its key is asked for. A dashboard that asks the same counts every
 * few seconds while rows arrive reads only the segments made since it last asked (OpenSearch's request cache keeps a
 * whole shard's answer, lost at the shard's next refresh with a change).
 *
 * <p>Bounded in bytes, least recently used out first. Not kept: segments of fewer than {@link #MIN_DOCS} documents
 * (cheap to read, and merged away soon), a segment's groups past {@link #MAX_GROUPS}, distinct values (COUNT DISTINCT
 * keeps sets that can be large), and requests whose expressions read the clock ({@code UNIX_TIMESTAMP()}).
 */
public final class SegmentAggregates {
  /** Keeps nothing. */
  public static final SegmentAggregates NONE = new SegmentAggregates(0);
  /** The default bound: a few thousand segments' groups of a dashboard's queries. */
  public static final long DEFAULT_BYTES = 16L << 20;
  /** Segments with fewer documents are read each time. */
  static final int MIN_DOCS = 2_048;
  /** A segment that makes more groups is read each time. */
  static final int MAX_GROUPS = 4_096;

  private record Key(Object segment, ByteString request) {}

  private record Kept(Map<Object, Aggregator.Accumulator> groups, int bytes) {}

  /** Null when nothing is kept. */
  private final Cache<Key, Kept> kept;
  private final AtomicLong hits = new AtomicLong();

  /** Keeps up to {@code maxBytes} of groups (estimated as the request's memory budget counts them); 0: none. */
  public SegmentAggregates(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("the bound of kept aggregations is at least 0 bytes; got " + maxBytes);
    }
    this.kept = maxBytes == 0 ? null : CacheBuilder.newBuilder().maximumWeight(maxBytes)
        .weigher((Key key, Kept value) -> value.bytes() + key.request().size()).build();
  }

  /**
   * What a request's groups are kept under: the request without what does not change them (its hits, their order and
   * columns, the group cap, which is checked as the kept groups are added); null when they are not kept.
   */
  ByteString requestKey(Query query) {
    if (kept == null || query.getAggregationsList().stream()
        .anyMatch(aggregation -> aggregation.getFunction() == Aggregation.Function.DISTINCT_VALUES)
        || readsClock(query)) {
      return null;
    }
    return query.toBuilder().clearSort().clearLimit().clearIncludeRows().clearTrackTotal().clearOrderedByComposite()
        .clearColumns().clearMaxGroups().build().toByteString();
  }

  /** A segment's key while its deletes are unchanged; null for a segment whose groups are not kept. */
  static Object segmentKey(LeafReaderContext context) {
    IndexReader.CacheHelper helper = context.reader().getReaderCacheHelper();
    return helper == null || context.reader().maxDoc() < MIN_DOCS ? null : helper.getKey();
  }

  /** The groups kept for {@code request} in {@code segment}, to be read only; null when none are. */
  Map<Object, Aggregator.Accumulator> get(Object segment, ByteString request) {
    Kept found = kept == null ? null : kept.getIfPresent(new Key(segment, request));
    if (found == null) {
      return null;
    }
    hits.incrementAndGet();
    return found.groups();
  }

  /** Keeps a segment's groups, which nobody changes after this. */
  void put(Object segment, ByteString request, Map<Object, Aggregator.Accumulator> groups, long bytes) {
    if (kept != null) {
      kept.put(new Key(segment, request), new Kept(groups, (int) Math.min(bytes, Integer.MAX_VALUE / 2)));
    }
  }

  /** How many segments' groups were taken from here instead of being read. */
  public long hits() {
    return hits.get();
  }

  /** Whether a message holds a call of {@code UNIX_TIMESTAMP()}, whose value is the time it is evaluated. */
  private static boolean readsClock(Message message) {
    if (message instanceof ExpressionCall call && call.getOp().equals(Op.UNIX_TIMESTAMP.name())
        && call.getArgsCount() == 0) {
      return true;
    }
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      List<?> values = field.getKey().isRepeated() ? (List<?>) field.getValue() : List.of(field.getValue());
      for (Object value : values) {
        if (readsClock((Message) value)) {
          return true;
        }
      }
    }
    return false;
  }
}
