package io.evenkeel.shard.replication;

import io.evenkeel.schemas.shard.ReleaseCopyStateRequest;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc.ReplicationServiceBlockingStub;
import java.io.IOException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.CopyOneFile;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies one set of files from the primary over {@link RemoteFileInput}: the files of a new NRT point, or of a merged
 * segment being pre-copied. {@link CopyJobRunner} calls {@link #visit} one chunk at a time, NRT points first, so a big
 * merged segment never holds back a small fresh one.
 */
final class GrpcCopyJob extends CopyJob {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcCopyJob.class);
  private final ShardReplicaNode replica;
  private final ReplicationServiceBlockingStub primary;
  private final int shard;
  /** The primary's lease on the copied point's files; 0 when none (merged segments are held by the merge itself). */
  private final long session;
  private final CopyState copyState;
  private final byte[] buffer = new byte[64 * 1024];
  private Iterator<Map.Entry<String, FileMetaData>> remaining;
  private boolean released;

  GrpcCopyJob(String reason, ShardReplicaNode replica, ReplicationServiceBlockingStub primary, long session,
      CopyState copyState, Map<String, FileMetaData> files, boolean highPriority, OnceDone onceDone)
      throws IOException {
    super(reason, files, replica, highPriority, onceDone);
    this.replica = replica;
    this.primary = primary;
    this.shard = replica.shard();
    this.session = session;
    this.copyState = copyState;
  }

  @Override
  public synchronized void start() {
    if (remaining != null) {
      throw new IllegalStateException("already started");
    }
    remaining = toCopy.iterator();
    if (current != null) {
      totBytes += current.metaData.length;
    }
    for (Map.Entry<String, FileMetaData> file : toCopy) {
      totBytes += file.getValue().length;
    }
  }

  /** Copies one chunk; true once every file is copied or the job was cancelled. */
  synchronized boolean visit() throws IOException {
    if (exc != null) {
      return true;
    }
    if (current == null) {
      if (!remaining.hasNext()) {
        release();
        return true;
      }
      Map.Entry<String, FileMetaData> next = remaining.next();
      FileMetaData file = next.getValue();
      current = new CopyOneFile(new RemoteFileInput(primary, shard, next.getKey(), session, 0, file.length), dest,
          next.getKey(), file, buffer);
    }
    if (current.visit()) {
      copiedFiles.put(current.name, current.tmpName);
      totBytesCopied += current.getBytesCopied();
      current = null;
    }
    return false;
  }

  @Override
  protected CopyOneFile newCopyOneFile(CopyOneFile previous) {
    return new CopyOneFile(previous, new RemoteFileInput(primary, shard, previous.name, session,
        previous.getBytesCopied(), previous.metaData.length));
  }

  @Override
  public void runBlocking() throws IOException {
    while (!visit()) {
      // one chunk per call
    }
    if (getFailed()) {
      throw new IOException("copy failed: " + cancelReason, exc);
    }
  }

  /** Gives each copied temporary file its real name; the replica then opens the point that names them. */
  @Override
  public void finish() throws IOException {
    for (Map.Entry<String, String> file : copiedFiles.entrySet()) {
      replica.rename(file.getValue(), file.getKey());
    }
    copiedFiles.clear();
  }

  @Override
  public synchronized void cancel(String reason, Throwable exc) throws IOException {
    try {
      super.cancel(reason, exc);
    } finally {
      release();
    }
  }

  @Override
  public synchronized void transferAndCancel(CopyJob previous) throws IOException {
    try {
      super.transferAndCancel(previous);
    } finally {
      ((GrpcCopyJob) previous).release();
    }
  }

  /** Lets the primary drop the point's files once they are copied; its lease ends this anyway if we die. */
  private synchronized void release() {
    if (released || session == 0) {
      return;
    }
    released = true;
    try {
      primary.withDeadlineAfter(5, TimeUnit.SECONDS)
          .releaseCopyState(ReleaseCopyStateRequest.newBuilder().setShard(shard).setSession(session).build());
    } catch (RuntimeException e) {
      LOG.debug("shard {}: releasing copy state session {} failed (its lease will end): {}", shard, session,
          e.toString());
    }
  }

  @Override
  public boolean getFailed() {
    return exc != null;
  }

  @Override
  public synchronized Set<String> getFileNamesToCopy() {
    Set<String> names = new HashSet<>();
    toCopy.forEach(file -> names.add(file.getKey()));
    return names;
  }

  @Override
  public Set<String> getFileNames() {
    return files.keySet();
  }

  @Override
  public CopyState getCopyState() {
    return copyState;
  }

  @Override
  public long getTotalBytesCopied() {
    return totBytesCopied;
  }

  @Override
  public synchronized boolean conflicts(CopyJob other) {
    Set<String> mine = getFileNamesToCopy();
    return other.getFileNamesToCopy().stream().anyMatch(mine::contains);
  }

  /** NRT points before merged segments, then first come first served. */
  @Override
  public int compareTo(CopyJob other) {
    if (highPriority != other.highPriority) {
      return highPriority ? -1 : 1;
    }
    return Long.compare(ord, other.ord);
  }

  @Override
  public String toString() {
    return "GrpcCopyJob(" + reason + ", " + files.size() + " files, " + totBytesCopied + " of " + totBytes
        + " bytes copied)";
  }
}
