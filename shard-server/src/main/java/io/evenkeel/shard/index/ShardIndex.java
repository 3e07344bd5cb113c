package io.evenkeel.shard.index;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * One shard's Lucene index with versioned, idempotent writes: a change is applied only when its version is newer than
 * the stored one (row or tombstone); the version check sees unrefreshed writes through the {@link LiveVersionMap}.
 *
 * <p>NOTE: {@link #apply} must be called by one thread at a time (the shard's write lock); searches and refreshes may
 * run concurrently.
 */
public final class ShardIndex implements Closeable {
  public static final String COMMIT_TRANSLOG_GENERATION = "translog_generation";
  public static final String COMMIT_MAX_SEQ_NO = "max_seq_no";

  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);

  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final LiveVersionMap versions = new LiveVersionMap();
  private final Map<String, String> lastCommit;

  public ShardIndex(Path path, double ramBufferMb) throws IOException {
    this.directory = FSDirectory.open(path);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer())
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
        .setRAMBufferSizeMB(ramBufferMb)
        // Commits happen only through commit(), which records the translog position.
        .setCommitOnClose(false);
    this.lastCommit = DirectoryReader.indexExists(directory)
        ? Map.copyOf(SegmentInfos.readLatestCommit(directory).getUserData())
        : Map.of();
    this.writer = new IndexWriter(directory, config);
    this.searchers = new SearcherManager(writer, true, false, null);
    searchers.addListener(versions);
  }

  /** The user data of the commit this index opened from (empty for a new index). */
  public Map<String, String> openedCommitData() {
    return lastCommit;
  }

  /** Applies one change with sequence number {@code seqNo}; false when its version is not newer than the stored one. */
  public boolean apply(TransactionLogChange change, long seqNo) throws IOException {
    RowKey key = new RowKey(change.getTenantId(), change.getRowId());
    StoredRow stored = lookup(key);
    if (stored != null && change.getVersion() <= stored.version()) {
      return false;
    }
    Term id = new Term(IndexFields.ID, key.toBytesRef());
    if (change.getOp() == ChangeOp.DELETE) {
      writer.updateDocument(id, RowDocuments.tombstone(key, change.getVersion(), seqNo));
      versions.put(key, StoredRow.tombstone(change.getVersion()));
      return true;
    }
    TransactionLogChange row = Changes.rowAfter(change, stored == null || stored.deleted() ? null : stored.row());
    byte[] source = ROWS.encode(row);
    writer.updateDocument(id, RowDocuments.row(key, row, source, seqNo));
    versions.put(key, new StoredRow(row.getVersion(), false, row, source));
    return true;
  }

  /** The newest row or tombstone stored for {@code key}, refreshed or not; null if none. */
  public StoredRow lookup(RowKey key) throws IOException {
    StoredRow live = versions.get(key);
    if (live != null) {
      return live;
    }
    IndexSearcher searcher = searchers.acquire();
    try {
      return lookup(searcher, key);
    } finally {
      searchers.release(searcher);
    }
  }

  /** The newest row or tombstone for {@code key} that {@code searcher} sees. */
  public static StoredRow lookup(IndexSearcher searcher, RowKey key) throws IOException {
    BytesRef id = key.toBytesRef();
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    // Newest segments last: recently written rows are found sooner from the end.
    for (int i = leaves.size() - 1; i >= 0; i--) {
      LeafReaderContext leaf = leaves.get(i);
      Terms terms = leaf.reader().terms(IndexFields.ID);
      if (terms == null) {
        continue;
      }
      TermsEnum termsEnum = terms.iterator();
      if (!termsEnum.seekExact(id)) {
        continue;
      }
      Bits liveDocs = leaf.reader().getLiveDocs();
      PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
      for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
        if (liveDocs != null && !liveDocs.get(doc)) {
          continue;
        }
        return read(leaf, doc);
      }
    }
    return null;
  }

  private static StoredRow read(LeafReaderContext leaf, int doc) throws IOException {
    NumericDocValues versionValues = leaf.reader().getNumericDocValues(IndexFields.VERSION);
    if (versionValues == null || !versionValues.advanceExact(doc)) {
      throw new IllegalStateException("document " + doc + " of " + leaf + " has no " + IndexFields.VERSION);
    }
    long version = versionValues.longValue();
    BytesRef source = leaf.reader().storedFields().document(doc).getBinaryValue(IndexFields.SOURCE);
    if (source == null) {
      return StoredRow.tombstone(version);
    }
    byte[] bytes = BytesRef.deepCopyOf(source).bytes;
    try {
      return new StoredRow(version, false, ROWS.decode(bytes), bytes);
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("stored row of document " + doc + " is unreadable: " + e.getMessage(), e);
    }
  }

  /** Makes every applied change searchable. */
  public void refresh() throws IOException {
    searchers.maybeRefreshBlocking();
  }

  /** Refreshes if no other refresh is running; returns at once otherwise. */
  public void maybeRefresh() throws IOException {
    searchers.maybeRefresh();
  }

  public SearcherManager searchers() {
    return searchers;
  }

  /** Commits every applied change with {@code data} (the translog position) as the commit's user data. */
  public void commit(Map<String, String> data) throws IOException {
    writer.setLiveCommitData(new HashMap<>(data).entrySet());
    writer.commit();
  }

  /** Changes applied since the searcher last refreshed (rows in the live version map). */
  public int unrefreshedRows() {
    return versions.size();
  }

  /** Bytes of the index files on disk. */
  public long sizeInBytes() {
    long total = 0;
    try {
      for (String file : directory.listAll()) {
        try {
          total += directory.fileLength(file);
        } catch (java.nio.file.NoSuchFileException e) {
          // Merged away while we listed.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return total;
  }

  @Override
  public void close() throws IOException {
    searchers.close();
    writer.close();
    directory.close();
  }
}
