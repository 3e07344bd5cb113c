package io.evenkeel.shard.replication;

/**
 * Where a primary records which replicas are in sync: the replicas that may be promoted. A replica leaves the set
 * before the primary acknowledges a write it lacks, so a promoted replica holds every acknowledged write; a primary
 * that cannot record the change (it is no longer the primary, or has lost the cluster) must not acknowledge.
 */
public interface InSyncSet {
  /** No record kept: a primary and replicas configured by hand. */
  InSyncSet UNRECORDED = new InSyncSet() {
    @Override
    public void joined(String replica) {}

    @Override
    public void left(String replica) {}

    @Override
    public void reset() {}
  };

  /** {@code replica} holds every acknowledged write and receives every new one. */
  void joined(String replica) throws Exception;

  /** {@code replica} may lack acknowledged writes from now on. */
  void left(String replica) throws Exception;

  /**
   * A primary opens (after a promotion or a restart): none of the replicas listed is awaited by it yet, so none may
   * stay listed. Called before the primary takes its first write.
   */
  void reset() throws Exception;
}
