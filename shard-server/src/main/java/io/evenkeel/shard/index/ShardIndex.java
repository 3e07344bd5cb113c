package io.evenkeel.shard.index;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.shard.replication.ShardPrimaryNode;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.replicator.nrt.Node;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard's Lucene index with versioned, idempotent writes: a change is applied only when its version is newer than
 * the stored one (row or tombstone); the version check sees unrefreshed writes through the {@link LiveVersionMap}.
 *
 * <p>The index is a primary copy: a {@link ShardPrimaryNode} opens its searchers and publishes each refresh for
 * replicas to copy.
 *
 * <p>NOTE: {@link #apply} must be called by one thread at a time (the shard's write lock); searches and refreshes may
 * run concurrently.
 */
public final class ShardIndex implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardIndex.class);
  public static final String COMMIT_TRANSLOG_GENERATION = "translog_generation";
  public static final String COMMIT_MAX_SEQ_NO = "max_seq_no";

  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);

  private final Directory directory;
  private final IndexWriter writer;
  private final ShardPrimaryNode node;
  private final ReferenceManager<IndexSearcher> searchers;
  private final LiveVersionMap versions = new LiveVersionMap();
  private final AtomicLong unapplied = new AtomicLong();
  /** Used only by {@link #apply} and {@link #reindex}, under the shard's write lock. */
  private final IdLookup writeLookup = new IdLookup();
  private final Map<String, String> lastCommit;

  /** Attribute keys indexed as fields now (frequency-based indexing): read at every write. */
  private final HotAttributes hotAttributes;

  /** A primary without replicas, for tools and tests. */
  public ShardIndex(Path path, double ramBufferMb) throws IOException {
    this(path, 0, ramBufferMb, HotAttributes.of(Set.of()), PrimaryTerm.COMMITTED, files -> {});
  }

  /**
   * Opens (or creates) the index at {@code path} as shard {@code shard}'s primary in {@code term}, with {@code
   * mergeCopier} copying merged segments to the replicas.
   */
  public ShardIndex(Path path, int shard, double ramBufferMb, HotAttributes hotAttributes, PrimaryTerm term,
      ShardPrimaryNode.MergeCopier mergeCopier) throws IOException {
    this.hotAttributes = hotAttributes;
    this.directory = FSDirectory.open(path);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer())
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
        .setRAMBufferSizeMB(ramBufferMb)
        .setCodec(new ShardCodec())
        // Commits happen only through commit(), which records the translog position.
        .setCommitOnClose(false);
    this.lastCommit = DirectoryReader.indexExists(directory)
        ? Map.copyOf(SegmentInfos.readLatestCommit(directory).getUserData())
        : Map.of();
    this.writer = new IndexWriter(directory, config);
    long committedTerm = Long.parseLong(lastCommit.getOrDefault(Node.PRIMARY_GEN_KEY, "0"));
    try {
      this.node = new ShardPrimaryNode(writer, shard, term.resolve(committedTerm), term.forceVersion(),
          ShardSearcher.factory(), mergeCopier);
    } catch (IOException | RuntimeException e) {
      writer.rollback();
      throw e;
    }
    this.searchers = node.getSearcherManager();
    searchers.addListener(versions);
  }

  /** The user data of the commit this index opened from (empty for a new index). */
  public Map<String, String> openedCommitData() {
    return lastCommit;
  }

  /**
   * Applies one change with sequence number {@code seqNo}; false when its version is not newer than the stored one,
   * or when Lucene refuses the document. Changes are validated before they are logged, so a refusal means a change
   * logged by an older version or written around the checks: it is counted ({@link #unappliedChanges()}) and logged
   * with the reason, and the shard goes on, since a change in the translog is replayed at every recovery.
   */
  public boolean apply(TransactionLogChange change, long seqNo) throws IOException {
    RowKey key = new RowKey(change.getTenantId(), change.getRowId());
    StoredRow stored = versions.get(key);
    if (stored == null) {
      stored = writeLookup.find(searchers, key);
    }
    if (stored != null && change.getVersion() <= stored.version()) {
      return false;
    }
    Document document;
    StoredRow next;
    if (change.getOp() == ChangeOp.DELETE) {
      document = RowDocuments.tombstone(key, change.getVersion(), seqNo, hotAttributes.keys());
      next = StoredRow.tombstone(change.getVersion());
    } else {
      TransactionLogChange row = Changes.rowAfter(change, stored == null || stored.deleted() ? null : stored.row());
      byte[] source = ROWS.encode(row);
      document = RowDocuments.row(key, row, source, seqNo, hotAttributes.keys());
      next = new StoredRow(row.getVersion(), false, row, source);
    }
    try {
      write(key, stored == null, document);
    } catch (IllegalArgumentException refused) {
      unapplied.incrementAndGet();
      LOG.warn("a change Lucene refuses is skipped (seq no {}): {}: {}", seqNo, Changes.describe(change),
          refused.getMessage());
      return false;
    }
    versions.put(key, next);
    return true;
  }

  private void write(RowKey key, boolean isNew, Document document) throws IOException {
    if (isNew) {
      // No document has this id (the searcher holds everything before its refresh, the version map everything
      // after): adding skips the delete-by-term that an update costs at every flush.
      writer.addDocument(document);
    } else {
      writer.updateDocument(new Term(IndexFields.ID, key.toBytesRef()), document);
    }
  }

  /**
   * Indexes again, under the hot attribute keys of now, each of {@code rows} still stored in the version it was read
   * in (a newer change indexed its row under the newer list already, and a deleted row stays deleted): filters on a
   * key listed since it was written then read the index instead of scanning it. Answers how many it indexed. Under
   * the shard's write lock, as {@link #apply}; no sequence number changes, so replicas and the translog are as before.
   */
  public int reindex(List<UnindexedRows.UnindexedRow> rows) throws IOException {
    Set<String> hotKeys = hotAttributes.keys();
    int reindexed = 0;
    for (UnindexedRows.UnindexedRow unindexed : rows) {
      TransactionLogChange row;
      try {
        row = ROWS.decode(unindexed.source());
      } catch (MalformedRecordException e) {
        throw new IllegalStateException("a stored row is unreadable: " + e.getMessage(), e);
      }
      RowKey key = new RowKey(row.getTenantId(), row.getRowId());
      StoredRow current = versions.get(key);
      if (current == null) {
        current = writeLookup.find(searchers, key);
      }
      if (current != null && !current.deleted() && current.version() == unindexed.version()) {
        writer.updateDocument(new Term(IndexFields.ID, key.toBytesRef()),
            RowDocuments.row(key, row, unindexed.source(), unindexed.seqNo(), hotKeys));
        reindexed++;
      }
    }
    return reindexed;
  }

  /** A walk over the rows indexed under an older list of hot attribute keys, for {@link #reindex}. */
  public UnindexedRows unindexedRows() {
    return new UnindexedRows(this);
  }

  /** The live rows {@code searcher} holds that are not indexed under every hot attribute key of now. */
  public int unindexedRowCount(IndexSearcher searcher) throws IOException {
    Set<String> hotKeys = hotAttributes.keys();
    return hotKeys.isEmpty() ? 0 : searcher.count(UnindexedRows.query(hotKeys));
  }

  HotAttributes hotAttributes() {
    return hotAttributes;
  }

  /** What closed the index writer for good (a full disk in a flush, say), or null while it works. */
  public Throwable tragedy() {
    return writer.getTragicException();
  }

  /** Changes {@link #apply} skipped because Lucene refused them, since this index opened. */
  public long unappliedChanges() {
    return unapplied.get();
  }

  /** The newest row or tombstone stored for {@code key}, refreshed or not; null if none. */
  public StoredRow lookup(RowKey key) throws IOException {
    return lookupAll(List.of(key)).get(0);
  }

  /**
   * The newest row or tombstone stored for each key, refreshed or not (null where the shard has none), in order; one
   * searcher and one stored-fields reader per segment serve them all.
   */
  public List<StoredRow> lookupAll(List<RowKey> keys) throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      IdLookup ids = new IdLookup();
      List<StoredRow> rows = new ArrayList<>(keys.size());
      for (RowKey key : keys) {
        StoredRow live = versions.get(key);
        rows.add(live != null ? live : ids.find(searcher, key));
      }
      return rows;
    } finally {
      searchers.release(searcher);
    }
  }

  /**
   * The row or tombstone {@code searcher} holds for each key (null where it has none), in order: what a replica,
   * which has only its copied segments, answers.
   */
  public static List<StoredRow> lookupAll(IndexSearcher searcher, List<RowKey> keys) throws IOException {
    IdLookup ids = new IdLookup();
    List<StoredRow> rows = new ArrayList<>(keys.size());
    for (RowKey key : keys) {
      rows.add(ids.find(searcher, key));
    }
    return rows;
  }

  /**
   * Finds ids in one searcher's segments, keeping a terms enum and a stored-fields reader per segment between calls on
   * the same searcher (a miss, the common case for inserts, then costs one seek per segment and no allocation; a hit
   * reuses the segment's reader instead of opening one per row). Not thread-safe.
   */
  private static final class IdLookup {
    private IndexSearcher searcher;
    private TermsEnum[] termsEnums;
    private StoredFields[] storedFields;

    StoredRow find(ReferenceManager<IndexSearcher> manager, RowKey key) throws IOException {
      IndexSearcher current = manager.acquire();
      try {
        return find(current, key);
      } finally {
        manager.release(current);
      }
    }

    StoredRow find(IndexSearcher current, RowKey key) throws IOException {
      List<LeafReaderContext> leaves = current.getIndexReader().leaves();
      if (current != searcher) {
        searcher = current;
        termsEnums = new TermsEnum[leaves.size()];
        storedFields = new StoredFields[leaves.size()];
        for (int i = 0; i < leaves.size(); i++) {
          Terms terms = leaves.get(i).reader().terms(IndexFields.ID);
          termsEnums[i] = terms == null ? null : terms.iterator();
        }
      }
      BytesRef id = key.toBytesRef();
      // Newest segments last: recently written rows are found sooner from the end.
      for (int i = leaves.size() - 1; i >= 0; i--) {
        TermsEnum termsEnum = termsEnums[i];
        if (termsEnum == null || !termsEnum.seekExact(id)) {
          continue;
        }
        LeafReaderContext leaf = leaves.get(i);
        Bits liveDocs = leaf.reader().getLiveDocs();
        PostingsEnum postings = termsEnum.postings(null, PostingsEnum.NONE);
        for (int doc = postings.nextDoc(); doc != PostingsEnum.NO_MORE_DOCS; doc = postings.nextDoc()) {
          if (liveDocs == null || liveDocs.get(doc)) {
            if (storedFields[i] == null) {
              storedFields[i] = leaf.reader().storedFields();
            }
            return read(leaf, storedFields[i], doc);
          }
        }
      }
      return null;
    }
  }

  private static StoredRow read(LeafReaderContext leaf, StoredFields storedFields, int doc) throws IOException {
    NumericDocValues versionValues = leaf.reader().getNumericDocValues(IndexFields.VERSION);
    if (versionValues == null || !versionValues.advanceExact(doc)) {
      throw new IllegalStateException("document " + doc + " of " + leaf + " has no " + IndexFields.VERSION);
    }
    long version = versionValues.longValue();
    BytesRef source = storedFields.document(doc).getBinaryValue(IndexFields.SOURCE);
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

  /** Makes every applied change searchable; true when that made a new point for replicas to copy. */
  public boolean refresh() throws IOException {
    return node.flushAndRefresh();
  }

  /** The primary's replication side: its current point, the files replicas copy. */
  public ShardPrimaryNode node() {
    return node;
  }

  /**
   * Merges the index down to at most {@code maxSegments} segments and makes the result searchable: for a shard that
   * no longer takes writes (per-segment costs of a query fall with the segment count).
   */
  public void forceMerge(int maxSegments) throws IOException {
    writer.forceMerge(maxSegments);
    refresh();
  }

  /** Waits for the merges under way to finish and makes their result searchable (benchmarks measure a quiet shard). */
  public void waitForMerges() throws IOException {
    if (writer.getConfig().getMergeScheduler() instanceof ConcurrentMergeScheduler merges) {
      do {
        merges.sync();
      } while (writer.hasPendingMerges());
    }
    refresh();
  }

  /** How many segments the current searcher reads. */
  public int segmentCount() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      return searcher.getIndexReader().leaves().size();
    } finally {
      searchers.release(searcher);
    }
  }

  public ReferenceManager<IndexSearcher> searchers() {
    return searchers;
  }

  /** Commits every applied change with {@code data} (the translog position) as the commit's user data. */
  public void commit(Map<String, String> data) throws IOException {
    Map<String, String> userData = new HashMap<>(data);
    userData.putAll(node.commitData());
    writer.setLiveCommitData(userData.entrySet());
    writer.commit();
  }

  /** Bytes of the index files on disk. */
  public long sizeInBytes() {
    return sizeInBytes(directory);
  }

  /** Bytes of the files in {@code directory} (a replica's copied index too). */
  public static long sizeInBytes(Directory directory) {
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

  /** Closes without committing (commit first): the node rolls the writer back and closes the directory. */
  @Override
  public void close() throws IOException {
    node.close();
  }
}
