package io.evenkeel.shard.engine;

import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.ShardReplicaNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * A replica in segment replication, the product's mode: after its join it copies every point its primary announces,
 * and each merged segment ahead of the point that names it, through lucene-replicator's NRT classes; it never
 * indexes. Promoted, it replays its translog into a primary ({@link #promote}).
 */
public final class SegmentReplicaShard extends ReplicaShard {
  SegmentReplicaShard(int id, Path directory, ShardSettings settings, String primary, String self,
      PeerChannels peers) {
    super(id, directory, settings, primary, self, peers);
  }

  /** The primary announced a point: copy it in the background. */
  @Override
  public void newPoint(long pointTerm, long version, long coveredSeqNo) throws IOException {
    ShardReplicaNode current = node;
    if (current == null || pointTerm != term) {
      return; // joining (the join copies the primary's current point)
    }
    if (version > announcedVersion) {
      announcedVersion = version;
      announcedAt.putIfAbsent(version, System.nanoTime());
      // Kept to the points not searched yet, also when no one reads the lag.
      announcedAt.headMap(current.getCurrentSearchingVersion(), true).clear();
    }
    current.newPoint(pointTerm, version, coveredSeqNo);
  }

  /** Copies a merged segment's files ahead of the point that will name them. */
  @Override
  public void preCopyMerge(long pointTerm, Map<String, FileMetaData> files) throws IOException, InterruptedException {
    ShardReplicaNode current = node;
    if (current == null || pointTerm != term) {
      throw new IllegalStateException("shard " + id + "'s replica is not following term " + pointTerm);
    }
    long started = System.nanoTime();
    current.preCopyMerge(pointTerm, files, TimeUnit.MINUTES.toMillis(30));
    LOG.info("shard {}: merged segment pre-copied ({} files, {} bytes) in {} ms", id, files.size(),
        files.values().stream().mapToLong(file -> file.length).sum(), (System.nanoTime() - started) / 1_000_000);
  }
}
