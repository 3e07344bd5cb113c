package io.evenkeel.shard.replication;

import io.evenkeel.schemas.shard.AcquireCopyStateRequest;
import io.evenkeel.schemas.shard.AcquireCopyStateResponse;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc.ReplicationServiceBlockingStub;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;
import org.apache.lucene.replicator.nrt.ReplicaNode;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.Directory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica shard copy's Lucene side: Lucene's {@link ReplicaNode}, copying the segment files it lacks from one
 * primary over the replication service and searching the points it copied. It never indexes. A replica follows one
 * primary in one term; when the primary changes, the shard copy opens a new node.
 */
public final class ShardReplicaNode extends ReplicaNode {
  private static final Logger LOG = LoggerFactory.getLogger(ShardReplicaNode.class);
  private static final long CALL_TIMEOUT_SECONDS = 30;

  private final ReplicationServiceBlockingStub primary;
  private final CopyJobRunner runner;
  /** The sequence number each announced or copied point covers, by version. */
  private final ConcurrentSkipListMap<Long, Long> coveredByVersion = new ConcurrentSkipListMap<>();
  private volatile long searchingCoveredSeqNo = -1;

  public ShardReplicaNode(int shard, Directory directory, SearcherFactory searchers,
      ReplicationServiceBlockingStub primary) throws IOException {
    super(shard, directory, searchers, null);
    this.primary = primary;
    this.runner = new CopyJobRunner("shard-" + shard + "-copies");
  }

  /** Opens the local copy; if the primary's term differs from the one this copy was written in, copies it now. */
  public void start(long term, long primaryCoveredSeqNo) throws IOException {
    super.start(term);
    searchingCoveredSeqNo = Math.max(searchingCoveredSeqNo, primaryCoveredSeqNo);
  }

  public int shard() {
    return id;
  }

  /** Records what an announced point covers, then copies it in the background. */
  public void newPoint(long term, long version, long coveredSeqNo) throws IOException {
    coveredByVersion.put(version, coveredSeqNo);
    newNRTPoint(term, version);
  }

  /**
   * Every write with this sequence number or lower is in the segments this replica searches (-1 when unknown): the
   * translog before it is needed no more once a commit holds these segments.
   */
  public long searchingCoveredSeqNo() {
    return searchingCoveredSeqNo;
  }

  /** Copies a merged segment's files now, returning when they are copied or the copy failed. */
  public void preCopyMerge(long term, Map<String, FileMetaData> files, long timeoutMillis) throws IOException,
      InterruptedException {
    AtomicBoolean finished = new AtomicBoolean();
    launchPreCopyMerge(finished, term, files);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!finished.get() && !isClosed()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("pre-copying merged files " + files.keySet() + " took over " + timeoutMillis + " ms");
      }
      Thread.sleep(5);
    }
  }

  @Override
  protected CopyJob newCopyJob(String reason, Map<String, FileMetaData> files, Map<String, FileMetaData> previous,
      boolean highPriority, CopyJob.OnceDone onceDone) throws IOException {
    long session = 0;
    CopyState state = null;
    if (files == null) {
      AcquireCopyStateResponse response;
      try {
        response = primary.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .acquireCopyState(AcquireCopyStateRequest.newBuilder().setShard(id).build());
      } catch (StatusRuntimeException e) {
        throw new NodeCommunicationException("asking the primary of shard " + id + " for its point failed: "
            + e.getStatus(), e);
      }
      session = response.getSession();
      state = NrtPoints.fromMessage(response.getPoint());
      coveredByVersion.put(state.version, response.getPoint().getCoveredSeqNo());
      files = state.files;
    }
    return new GrpcCopyJob(reason, this, primary, session, state, files, highPriority, onceDone);
  }

  @Override
  protected void finishNRTCopy(CopyJob job, long startNanos) throws IOException {
    super.finishNRTCopy(job, startNanos);
    if (!job.getFailed()) {
      long version = job.getCopyState().version;
      Long covered = coveredByVersion.get(version);
      if (covered != null) {
        searchingCoveredSeqNo = Math.max(searchingCoveredSeqNo, covered);
      }
      coveredByVersion.headMap(version, true).clear();
      LOG.debug("shard {}: searching version {} ({} bytes copied in {} ms)", id, version,
          job.getTotalBytesCopied(), (System.nanoTime() - startNanos) / 1_000_000);
    }
  }

  @Override
  protected void launch(CopyJob job) {
    runner.launch((GrpcCopyJob) job);
  }

  /** The primary learns of this replica through AddReplica, before the node starts. */
  @Override
  protected void sendNewReplica() {}

  void rename(String from, String to) throws IOException {
    dir.rename(from, to);
  }

  @Override
  public void close() throws IOException {
    runner.close();
    synchronized (mergeCopyJobs) {
      for (CopyJob job : mergeCopyJobs) {
        job.cancel("the replica is closing", null);
      }
    }
    super.close();
  }
}
