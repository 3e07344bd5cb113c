package io.evenkeel.benchmarks.replication;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes rows straight to the shards' primaries over the shard servers' gRPC {@code Write}, as the ingest job's sink
 * does, but with nothing else running: the shard servers are then the bottleneck, which is where the cost of
 * replication shows. Rows are spread over all shards by row id (the storage layer does not care how a row was routed);
 * batches of {@link #BATCH_ROWS} rows, {@link #IN_FLIGHT_PER_SHARD} unacknowledged per shard, so every primary always
 * has work. A primary acknowledges a batch once its in-sync replicas' translogs have it.
 */
public final class DirectWrites {
  static final int BATCH_ROWS = 500;
  static final int IN_FLIGHT_PER_SHARD = 2;
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);

  private final ClusterClient client;
  private final int shards;

  /** Writes to shards 0 to {@code shards - 1}, each row to one of them by its row id. */
  public DirectWrites(ClusterClient client, int shards) {
    this.client = client;
    this.shards = shards;
  }

  /** Writes {@code rows} to the primaries {@code state} names and returns once every batch is acknowledged. */
  public void write(ClusterState state, List<TransactionLogChange> rows) throws InterruptedException {
    List<List<List<TransactionLogChange>>> batches = new ArrayList<>();
    for (int shard = 0; shard < shards; shard++) {
      batches.add(new ArrayList<>());
    }
    for (TransactionLogChange row : rows) {
      List<List<TransactionLogChange>> of = batches.get(shardOf(row));
      if (of.isEmpty() || of.get(of.size() - 1).size() == BATCH_ROWS) {
        of.add(new ArrayList<>(BATCH_ROWS));
      }
      of.get(of.size() - 1).add(row);
    }
    Semaphore[] slots = new Semaphore[shards];
    for (int shard = 0; shard < shards; shard++) {
      slots[shard] = new Semaphore(IN_FLIGHT_PER_SHARD);
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    int rounds = batches.stream().mapToInt(List::size).max().orElse(0);
    // Round robin over the shards, a batch each, so that all primaries are busy from the start to the end.
    for (int round = 0; round < rounds; round++) {
      for (int shard = 0; shard < shards; shard++) {
        if (round >= batches.get(shard).size()) {
          continue;
        }
        slots[shard].acquire();
        if (failure.get() != null) {
          throw new IllegalStateException("a write failed", failure.get());
        }
        send(state, shard, round, batches.get(shard).get(round), slots[shard], failure);
      }
    }
    for (Semaphore slot : slots) {
      slot.acquire(IN_FLIGHT_PER_SHARD);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a write failed", failure.get());
    }
  }

  /** The documents each live copy of every shard searches, summed over shards: primaries, then replicas. */
  long[] searchableDocs(ClusterState state) {
    long primaries = 0;
    long replicas = 0;
    for (int shard = 0; shard < shards; shard++) {
      primaries += docs(state.livePrimary(shard).orElseThrow(), shard);
      for (String replica : state.liveReplicas(shard)) {
        replicas += docs(replica, shard);
      }
    }
    return new long[] {primaries, replicas};
  }

  private long docs(String server, int shard) {
    return client.blockingStub(ShardAddress.parse(server)).withDeadlineAfter(10, TimeUnit.SECONDS)
        .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
  }

  private int shardOf(TransactionLogChange row) {
    return (int) Math.floorMod(row.getRowId() * 0x9E3779B97F4A7C15L >>> 17, (long) shards);
  }

  private void send(ClusterState state, int shard, long sequence, List<TransactionLogChange> changes,
      Semaphore slot, AtomicReference<Throwable> failure) {
    byte[] batch = BATCHES.encode(ShardWriteBatch.newBuilder().setShard(shard).setSender("replication-benchmark")
        .setBatchSequence(sequence).setSentTime(System.currentTimeMillis()).setWaitForRefresh(false)
        .setChanges(changes).build());
    ShardAddress primary = ShardAddress.parse(state.livePrimary(shard).orElseThrow());
    Futures.addCallback(client.futureStub(primary).withDeadlineAfter(60, TimeUnit.SECONDS)
            .write(WriteRequest.newBuilder().setShard(shard).setBatch(ByteString.copyFrom(batch)).build()),
        new FutureCallback<WriteResponse>() {
          @Override
          public void onSuccess(WriteResponse response) {
            slot.release();
          }

          @Override
          public void onFailure(Throwable t) {
            failure.compareAndSet(null, t);
            slot.release();
          }
        }, MoreExecutors.directExecutor());
  }
}
