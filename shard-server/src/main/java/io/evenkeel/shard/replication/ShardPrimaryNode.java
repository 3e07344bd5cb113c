package io.evenkeel.shard.replication;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import java.io.IOException;
import java.util.Map;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.PrimaryNode;
import org.apache.lucene.search.SearcherFactory;

/**
 * A primary shard copy's Lucene side: Lucene's {@link PrimaryNode} over the shard's {@link IndexWriter}. It opens the
 * shard's searchers (writing deletes to files at each refresh, so that replicas can copy them), publishes each
 * refresh as a {@link org.apache.lucene.replicator.nrt.CopyState}, keeps that point's files alive while replicas copy
 * them, and has every merged segment copied to the replicas before the writer switches to it.
 */
public final class ShardPrimaryNode extends PrimaryNode {
  /** How the node reaches its replicas for merged segments. */
  public interface MergeCopier {
    /** Returns once the in-sync replicas hold {@code files} (or have been dropped from the in-sync set). */
    void preCopy(Map<String, FileMetaData> files) throws IOException;
  }

  private final MergeCopier mergeCopier;
  /** The files of merged segments being copied to the replicas now: the only files read outside a copy state. */
  private final Set<String> preCopying = ConcurrentHashMap.newKeySet();

  /**
   * @param term the primary term: it grows with every promotion, so replicas can tell a new primary's points from an
   *     old one's
   * @param forceVersion -1, or the segment-infos version to continue above (after a promotion: above any version a
   *     replica may have seen from the previous primary)
   */
  public ShardPrimaryNode(IndexWriter writer, int shard, long term, long forceVersion, SearcherFactory searchers,
      MergeCopier mergeCopier) throws IOException {
    super(writer, shard, term, forceVersion, searchers, null);
    this.mergeCopier = mergeCopier;
    // A replica holding a copy state blocks close; its lease on the primary bounds how long anyway.
    setRemoteCloseTimeoutMs(2_000);
  }

  @Override
  protected void preCopyMergedSegmentFiles(SegmentCommitInfo info, Map<String, FileMetaData> files)
      throws IOException {
    // Null while PrimaryNode's constructor runs (it installs the warmer first): a merge that ends then has no
    // replica to copy to yet.
    MergeCopier copier = mergeCopier;
    if (copier != null) {
      preCopying.addAll(files.keySet());
      try {
        copier.preCopy(files);
      } finally {
        preCopying.removeAll(files.keySet());
      }
    }
  }

  /** Whether {@code file} belongs to a merged segment being copied to the replicas now. */
  public boolean isPreCopying(String file) {
    return preCopying.contains(file);
  }

  /** The commit user data that lets a replica started on this directory tell which primary wrote it. */
  public Map<String, String> commitData() {
    return Map.of(PRIMARY_GEN_KEY, Long.toString(primaryGen), VERSION_KEY, Long.toString(getCopyStateVersion()));
  }

  public int shard() {
    return id;
  }
}
