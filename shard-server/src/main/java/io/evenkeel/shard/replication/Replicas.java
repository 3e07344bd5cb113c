package io.evenkeel.shard.replication;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.evenkeel.schemas.shard.NewNrtPointRequest;
import io.evenkeel.schemas.shard.PreCopyMergeRequest;
import io.evenkeel.schemas.shard.ReplicateRequest;
import io.grpc.Context;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary's replicas of one shard, seen from the primary: it forwards each write batch to every replica's translog
 * and counts the copies that have it, announces each new NRT point, and has merged segments copied ahead.
 *
 * <p>A replica that was just added is <em>recovering</em>: it gets every write from its join on and copies segment
 * files for the earlier ones; once it searches the point taken at its join, it is <em>in sync</em>. Only in-sync
 * replicas count as copies of a write. A replica that fails a forward is dropped and must join again; the write is
 * still acknowledged when the copies left satisfy {@link #requiredCopies}.
 */
public final class Replicas implements ShardPrimaryNode.MergeCopier {
  private static final Logger LOG = LoggerFactory.getLogger(Replicas.class);
  /** Every in-sync copy (the default): a promoted replica then holds every acknowledged write. */
  public static final int ALL_IN_SYNC = 0;
  private static final long FORWARD_TIMEOUT_SECONDS = 30;
  private static final long MERGE_COPY_TIMEOUT_MINUTES = 30;
  /**
   * Calls to replicas are made outside the gRPC context of the write (or refresh) that caused them: a forward to a
   * recovering replica outlives the write, which does not wait for it, and would be cancelled with the write's context.
   */
  private static final Context DETACHED = Context.ROOT;

  /** One replica as its primary knows it. */
  public record Status(String address, boolean inSync) {}

  /** One join of a replica: what {@link #add} answers, for {@link #joinedAt}. */
  public static final class Replica {
    final String address;
    final long joinSeqNo;
    /** The point holding every write before {@link #joinSeqNo}; unknown (max) until the primary has refreshed. */
    volatile long joinVersion = Long.MAX_VALUE;
    /** Awaited: every write forwarded from now on is acknowledged only once this replica has it (or left). */
    volatile boolean inSync;
    /** Recorded in the in-sync set: it may be promoted. Only ever after {@link #inSync}. */
    volatile boolean recorded;
    /** Forwards sent before it was awaited and not answered yet: it is recorded only once there are none. */
    final AtomicInteger unawaited = new AtomicInteger();
    /** Set (under the replica's monitor) when the primary stops forwarding to it: it is never recorded after. */
    boolean dropped;

    Replica(String address, long joinSeqNo) {
      this.address = address;
      this.joinSeqNo = joinSeqNo;
    }
  }

  private final int shard;
  private final PeerChannels peers;
  private final int requiredCopies;
  private final InSyncSet inSyncSet;
  private final Map<String, Replica> replicas = new ConcurrentHashMap<>();
  private final Set<ListenableFuture<?>> preCopies = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  /** Drops replicas off the transport threads: recording a drop may call ZooKeeper. */
  private static final Executor DROPS = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "replica-drops");
    thread.setDaemon(true);
    return thread;
  });
  private volatile long term;

  /**
   * @param requiredCopies how many copies (the primary's included) must hold a write before it is acknowledged, or
   *     {@link #ALL_IN_SYNC}
   */
  public Replicas(int shard, PeerChannels peers, int requiredCopies) {
    this(shard, peers, requiredCopies, InSyncSet.UNRECORDED);
  }

  /** With {@code inSyncSet} recording which replicas are in sync (the cluster state). */
  public Replicas(int shard, PeerChannels peers, int requiredCopies, InSyncSet inSyncSet) {
    if (requiredCopies < 0) {
      throw new IllegalArgumentException("required copies must be >= 0 (0: all in-sync copies); got: "
          + requiredCopies);
    }
    this.shard = shard;
    this.peers = peers;
    this.requiredCopies = requiredCopies;
    this.inSyncSet = inSyncSet;
  }

  /** The primary's term, sent with every call so that a replica can refuse an old primary. */
  public void term(long term) {
    this.term = term;
  }

  /**
   * Starts forwarding to {@code address} from {@code nextSeqNo} on; call it under the shard's write lock, so that no
   * write falls between the segments the replica copies and the writes it is forwarded. A replica joining again first
   * leaves the recorded in-sync set (it has emptied its translog to join): throws when that cannot be recorded, and
   * the join fails. Answers the entry, whose join point {@link #joinedAt} sets.
   */
  public Replica add(String address, long nextSeqNo) throws Exception {
    Replica previous = replicas.get(address);
    if (previous != null) {
      synchronized (previous) {
        previous.dropped = true;
        if (previous.inSync) {
          inSyncSet.left(address);
          previous.inSync = false;
          previous.recorded = false;
        }
      }
    }
    Replica replica = new Replica(address, nextSeqNo);
    replicas.put(address, replica);
    LOG.info("shard {}: replica {} joins at seq no {}{}", shard, address, nextSeqNo,
        previous == null ? "" : " (again)");
    return replica;
  }

  /**
   * The replica that {@link #add} answered is in sync once it searches {@code version}, a point holding every write
   * before it joined (the entry itself, not the address: a later join of the same address has a later point).
   */
  public void joinedAt(Replica entry, long version) {
    entry.joinVersion = version;
  }

  /**
   * Records a replica's heartbeat; false when the replica is not (or no longer) one of this primary's. A replica
   * that searches its join point is awaited from then on, and recorded as in sync once no write sent before that is
   * unanswered: so a replica in the recorded set holds every write this primary has acknowledged.
   */
  public boolean heartbeat(String address, long replicaTerm, long searchingVersion) {
    Replica replica = replicas.get(address);
    if (replica == null || replicaTerm != term) {
      return false;
    }
    // One replica's heartbeat and drop take turns: a replica dropped for a write it missed is never recorded.
    synchronized (replica) {
      if (replica.dropped) {
        return false;
      }
      if (!replica.inSync && searchingVersion >= replica.joinVersion) {
        replica.inSync = true;
      }
      if (replica.inSync && !replica.recorded && replica.unawaited.get() == 0) {
        try {
          inSyncSet.joined(address);
        } catch (Exception e) {
          LOG.warn("shard {}: recording replica {} as in sync failed; retrying at its next heartbeat: {}", shard,
              address, e.toString());
          return true;
        }
        replica.recorded = true;
        LOG.info("shard {}: replica {} is in sync (searching version {})", shard, address, searchingVersion);
      }
    }
    return true;
  }

  /** Where this primary records its in-sync replicas. */
  public InSyncSet inSyncSet() {
    return inSyncSet;
  }

  public boolean inSync(String address) {
    Replica replica = replicas.get(address);
    return replica != null && replica.inSync;
  }

  /**
   * Sends a batch to every replica's translog. Call it under the shard's write lock, so that replicas receive
   * batches in sequence order; wait on the result outside it. The result completes once every in-sync replica has
   * the batch or has been dropped, and fails when fewer than the required copies hold it.
   */
  public CompletableFuture<Void> forward(long firstSeqNo, long lastSeqNo, byte[] batch) {
    if (replicas.isEmpty()) {
      return requiredCopies > 1
          ? CompletableFuture.failedFuture(new IOException(notEnoughCopies(1)))
          : CompletableFuture.completedFuture(null);
    }
    ReplicateRequest request = ReplicateRequest.newBuilder().setShard(shard).setPrimaryTerm(term)
        .setFirstSeqNo(firstSeqNo).setLastSeqNo(lastSeqNo).setBatch(ByteString.copyFrom(batch)).build();
    List<CompletableFuture<Boolean>> acks = new ArrayList<>();
    Context previous = DETACHED.attach();
    try {
      for (Replica replica : replicas.values()) {
        forward(replica, request, acks);
      }
    } finally {
      DETACHED.detach(previous);
    }
    return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
      int copies = 1 + (int) acks.stream().filter(CompletableFuture::join).count();
      if (requiredCopies > copies) {
        return CompletableFuture.failedFuture(new IOException(notEnoughCopies(copies)));
      }
      return CompletableFuture.completedFuture(null);
    });
  }

  /** Sends {@code request} to one replica; an in-sync replica's answer joins {@code acks}. */
  private void forward(Replica replica, ReplicateRequest request, List<CompletableFuture<Boolean>> acks) {
    long firstSeqNo = request.getFirstSeqNo();
    long lastSeqNo = request.getLastSeqNo();
    CompletableFuture<Boolean> ack = new CompletableFuture<>();
    // Counted before inSync is read, while heartbeat() sets inSync before it reads the count: either this write is
    // awaited, or the replica is not recorded until the write is answered (and it is dropped if that fails).
    replica.unawaited.incrementAndGet();
    boolean awaited = replica.inSync;
    if (awaited) {
      replica.unawaited.decrementAndGet();
      acks.add(ack);
    }
    ListenableFuture<?> call = peers.futureStub(replica.address)
        .withDeadlineAfter(FORWARD_TIMEOUT_SECONDS, TimeUnit.SECONDS).replicate(request);
    Futures.addCallback(call, new FutureCallback<Object>() {
      @Override
      public void onSuccess(Object result) {
        ack.complete(true);
        if (!awaited) {
          replica.unawaited.decrementAndGet();
        }
      }

      @Override
      public void onFailure(Throwable t) {
        DROPS.execute(() -> {
          try {
            drop(replica, "forwarding seq nos " + firstSeqNo + ".." + lastSeqNo + " failed: " + t);
            ack.complete(false);
          } catch (Exception e) {
            ack.completeExceptionally(e);
          }
          // Dropped first: a replica that missed this write is never recorded.
          if (!awaited) {
            replica.unawaited.decrementAndGet();
          }
        });
      }
    }, MoreExecutors.directExecutor());
  }

  private String notEnoughCopies(int copies) {
    return "shard " + shard + ": only " + copies + " of the " + requiredCopies + " required copies hold the write";
  }

  /** Announces a new point to every replica; each copies it in the background. */
  public void publish(long version, long coveredSeqNo) {
    NewNrtPointRequest request = NewNrtPointRequest.newBuilder().setShard(shard).setPrimaryTerm(term)
        .setVersion(version).setCoveredSeqNo(coveredSeqNo).build();
    Context previous = DETACHED.attach();
    try {
      for (Replica replica : replicas.values()) {
        announce(replica, request);
      }
    } finally {
      DETACHED.detach(previous);
    }
  }

  private void announce(Replica replica, NewNrtPointRequest request) {
    long version = request.getVersion();
    Futures.addCallback(peers.futureStub(replica.address).withDeadlineAfter(10, TimeUnit.SECONDS)
        .newNrtPoint(request), new FutureCallback<Object>() {
          @Override
          public void onSuccess(Object result) {}

          @Override
          public void onFailure(Throwable t) {
            LOG.debug("shard {}: announcing version {} to {} failed: {}", shard, version, replica.address, t);
          }
        }, MoreExecutors.directExecutor());
  }

  /**
   * Has every in-sync replica copy a merged segment; a replica that cannot is dropped. Runs on a merge thread, which
   * the primary's close waits for: {@link #close} cancels the copies under way, so a slow replica never holds it up.
   */
  @Override
  public void preCopy(Map<String, FileMetaData> files) {
    if (closed) {
      return;
    }
    PreCopyMergeRequest request = PreCopyMergeRequest.newBuilder().setShard(shard).setPrimaryTerm(term)
        .putAllFiles(NrtPoints.toMessages(files)).build();
    List<Replica> targets = replicas.values().stream().filter(r -> r.inSync).toList();
    List<ListenableFuture<?>> copies = new ArrayList<>();
    Context previous = DETACHED.attach();
    try {
      for (Replica replica : targets) {
        ListenableFuture<?> copy = peers.futureStub(replica.address)
            .withDeadlineAfter(MERGE_COPY_TIMEOUT_MINUTES, TimeUnit.MINUTES).preCopyMerge(request);
        copies.add(copy);
        preCopies.add(copy);
      }
    } finally {
      DETACHED.detach(previous);
    }
    try {
      if (closed) {
        copies.forEach(copy -> copy.cancel(true)); // close() may have run before they were registered
      }
      for (int i = 0; i < targets.size(); i++) {
        try {
          copies.get(i).get();
        } catch (ExecutionException | CancellationException e) {
          if (closed) {
            return; // the replicas copy the merged segment with the next point of whichever primary follows
          }
          try {
            drop(targets.get(i), "pre-copying merged files failed: " + (e.getCause() == null ? e : e.getCause()));
          } catch (Exception dropFailed) {
            LOG.error("shard {}: recording the drop of {} failed", shard, targets.get(i).address, dropFailed);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    } finally {
      preCopies.removeAll(copies);
    }
  }

  /** The primary is closing: cancels merged-segment copies under way and starts no more. */
  public void close() {
    closed = true;
    preCopies.forEach(copy -> copy.cancel(true));
  }

  /**
   * Stops forwarding to a replica; an in-sync one leaves the recorded in-sync set first. Throws when that record
   * fails: the write that found the replica failing must not be acknowledged then.
   */
  private void drop(Replica replica, String why) throws Exception {
    synchronized (replica) {
      replica.dropped = true;
      if (replica.inSync) {
        // Left even when not recorded yet: a recording that failed may still have reached ZooKeeper.
        inSyncSet.left(replica.address);
        replica.inSync = false;
        replica.recorded = false;
      }
    }
    if (replicas.remove(replica.address, replica)) {
      LOG.warn("shard {}: replica {} dropped: {}", shard, replica.address, why);
    }
  }

  public List<Status> status() {
    return replicas.values().stream().map(r -> new Status(r.address, r.inSync)).toList();
  }
}
