package io.evenkeel.shard.replication;

import io.evenkeel.schemas.shard.NrtPoint;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.replicator.nrt.CopyState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NRT points replicas are copying from a primary: each keeps its files alive on the primary until the replica
 * releases it, or until it goes unread for {@link #LEASE_MILLIS} (a replica that died while copying).
 */
public final class CopyStateLeases {
  private static final Logger LOG = LoggerFactory.getLogger(CopyStateLeases.class);
  static final long LEASE_MILLIS = 60_000;

  private record Lease(CopyState state, AtomicLong lastUsedNanos) {}

  private final ShardPrimaryNode node;
  private final Map<Long, Lease> leases = new ConcurrentHashMap<>();
  private final AtomicLong sessions = new AtomicLong();

  public CopyStateLeases(ShardPrimaryNode node) {
    this.node = node;
  }

  /** Holds the current point; answers its session and the point as a message. */
  public Map.Entry<Long, NrtPoint> acquire(long coveredSeqNo) throws IOException {
    CopyState state = node.getCopyState();
    long session = sessions.incrementAndGet();
    leases.put(session, new Lease(state, new AtomicLong(System.nanoTime())));
    return Map.entry(session, NrtPoints.toMessage(state, coveredSeqNo));
  }

  /** Renews a session's lease; true when it holds {@code file}, false when it has ended or holds no such file. */
  public boolean holds(long session, String file) {
    Lease lease = leases.get(session);
    return lease != null && touch(session) && lease.state().files.containsKey(file);
  }

  /** Renews a session's lease; false when it has ended. */
  public boolean touch(long session) {
    Lease lease = leases.get(session);
    if (lease == null) {
      return false;
    }
    lease.lastUsedNanos.set(System.nanoTime());
    return true;
  }

  public void release(long session) throws IOException {
    Lease lease = leases.remove(session);
    if (lease != null) {
      node.releaseCopyState(lease.state);
    }
  }

  /** Ends the leases unread for too long. */
  public void expire() throws IOException {
    long now = System.nanoTime();
    for (Iterator<Map.Entry<Long, Lease>> it = leases.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Lease> entry = it.next();
      if (now - entry.getValue().lastUsedNanos.get() > TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS)) {
        it.remove();
        LOG.warn("shard {}: copy state session {} unread for {} s: released", node.shard(), entry.getKey(),
            LEASE_MILLIS / 1000);
        node.releaseCopyState(entry.getValue().state);
      }
    }
  }

  /** Releases every lease: the primary is closing. */
  public void releaseAll() throws IOException {
    for (Long session : leases.keySet()) {
      release(session);
    }
  }
}
