package io.evenkeel.shard.cluster;

import io.evenkeel.shard.replication.InSyncSet;
import java.io.IOException;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/** What a cluster member directs: the shard copies a server holds, and their roles. */
public interface ShardHolder {
  /** "host:port": where the server serves, its id in the cluster state. */
  String address();

  /** Holds {@code shard}'s primary in {@code term} (promoting a replica held here, or opening the directory). */
  void holdPrimary(int shard, long term) throws IOException;

  /** Holds a replica of {@code shard} following the primary at {@code primary}. */
  void holdReplica(int shard, String primary) throws IOException;

  /** Stops holding any copy of {@code shard}, deleting its files (the cluster holds its copies elsewhere). */
  void release(int shard) throws IOException;

  boolean holds(int shard);

  /**
   * The highest sequence number the copy of {@code shard} on {@code server} holds in its translog (asked over the
   * network), for choosing which in-sync replica to promote; throws when the server does not answer.
   */
  long sequenceNumberOf(String server, int shard) throws IOException;

  /** Where the primaries opened from now on record their in-sync replicas (by shard and term). */
  void recordInSyncSets(BiFunction<Integer, Long, InSyncSet> inSyncSets);

  /**
   * Which servers a primary here lets join as replicas of a shard ({@code assigned} given the shard and the joiner's
   * "host:port"): those the cluster state lists as its replicas, so that no other process receives its writes or is
   * counted in sync.
   */
  void admitReplicas(BiPredicate<Integer, String> assigned);
}
