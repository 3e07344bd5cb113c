package io.evenkeel.shard.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

/**
 * The live rows of a shard whose documents were written before one of today's hot attribute keys was listed
 * (frequency-based indexing): filters on that key scan their stored rows until they are indexed again. Walks them in
 * passes, each over one searcher held until the pass ends, so that a row re-indexed in this pass is not met again
 * before the next refresh; a pass that ends hands the searcher back, and the next one waits for a newer point.
 * Tombstones are left alone: no search reads them.
 *
 * <p>Not thread-safe: one caller at a time.
 */
public final class UnindexedRows implements Closeable {
  private final ShardIndex index;
  private IndexSearcher pass;
  private Weight weight;
  private int leaf;
  private DocIdSetIterator docs;
  private NumericDocValues versions;
  private NumericDocValues seqNos;
  private StoredFields storedFields;
  private boolean closed;
  /** The reader version of the last pass: a pass over the same point would meet the rows it re-indexed again. */
  private long lastPassVersion = -1;

  UnindexedRows(ShardIndex index) {
    this.index = index;
  }

  /**
   * The live rows not indexed under {@code hotKeys}, the hot keys now: those whose documents lack the mark of one of
   * them ({@link IndexFields#HOT_KEYS}); none when the list is empty.
   */
  public static Query query(Set<String> hotKeys) {
    BooleanQuery.Builder indexedForAll = new BooleanQuery.Builder();
    for (String key : hotKeys) {
      indexedForAll.add(new TermQuery(new Term(IndexFields.HOT_KEYS, key)), BooleanClause.Occur.FILTER);
    }
    return new BooleanQuery.Builder()
        .add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER)
        .add(indexedForAll.build(), BooleanClause.Occur.MUST_NOT)
        .add(new TermQuery(new Term(IndexFields.TOMBSTONE, "T")), BooleanClause.Occur.MUST_NOT)
        .build();
  }

  /**
   * Up to {@code max} more such rows as this pass's searcher holds them, each with the sequence number of the change
   * that wrote it; empty when the pass found none, or when the list is empty or this walk is closed.
   */
  public List<UnindexedRow> next(int max) throws IOException {
    List<UnindexedRow> rows = new ArrayList<>();
    if (closed || (pass == null && !startPass())) {
      return rows;
    }
    List<LeafReaderContext> leaves = pass.getIndexReader().leaves();
    while (rows.size() < max) {
      if (docs == null && !nextLeaf(leaves)) {
        endPass();
        break;
      }
      int doc = docs.nextDoc();
      if (doc == DocIdSetIterator.NO_MORE_DOCS) {
        docs = null;
        leaf++;
        continue;
      }
      rows.add(read(doc));
    }
    return rows;
  }

  private boolean startPass() throws IOException {
    Set<String> hotKeys = index.hotAttributes().keys();
    if (hotKeys.isEmpty()) {
      return false;
    }
    IndexSearcher searcher = index.searchers().acquire();
    long version = ((DirectoryReader) searcher.getIndexReader()).getVersion();
    if (version == lastPassVersion) {
      index.searchers().release(searcher);
      return false;
    }
    pass = searcher;
    lastPassVersion = version;
    weight = pass.createWeight(pass.rewrite(query(hotKeys)), ScoreMode.COMPLETE_NO_SCORES, 1);
    leaf = 0;
    docs = null;
    return true;
  }

  private boolean nextLeaf(List<LeafReaderContext> leaves) throws IOException {
    for (; leaf < leaves.size(); leaf++) {
      LeafReaderContext context = leaves.get(leaf);
      Scorer scorer = weight.scorer(context);
      if (scorer != null) {
        docs = scorer.iterator();
        versions = context.reader().getNumericDocValues(IndexFields.VERSION);
        seqNos = context.reader().getNumericDocValues(IndexFields.SEQ_NO);
        storedFields = context.reader().storedFields();
        return true;
      }
    }
    return false;
  }

  private UnindexedRow read(int doc) throws IOException {
    if (versions == null || !versions.advanceExact(doc) || seqNos == null || !seqNos.advanceExact(doc)) {
      throw new IllegalStateException("document " + doc + " has no " + IndexFields.VERSION + " or "
          + IndexFields.SEQ_NO);
    }
    BytesRef source = storedFields.document(doc).getBinaryValue(IndexFields.SOURCE);
    if (source == null) {
      throw new IllegalStateException("live document " + doc + " has no stored row");
    }
    return new UnindexedRow(versions.longValue(), seqNos.longValue(), BytesRef.deepCopyOf(source).bytes);
  }

  private void endPass() throws IOException {
    if (pass != null) {
      IndexSearcher ended = pass;
      pass = null;
      weight = null;
      docs = null;
      versions = null;
      seqNos = null;
      storedFields = null;
      index.searchers().release(ended);
    }
  }

  /** Hands the searcher back; {@link #next} answers nothing from now on. Call before the index closes. */
  @Override
  public void close() throws IOException {
    closed = true;
    endPass();
  }

  /** A row as the pass's searcher holds it: the version and sequence number of its change, and its stored bytes. */
  public record UnindexedRow(long version, long seqNo, byte[] source) {}
}
