package io.evenkeel.benchmarks.query;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.ShardIndex;
import io.evenkeel.shard.search.SegmentAggregates;
import io.evenkeel.shard.server.ShardServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/** One shard server in this process holding every shard, loaded through the gRPC write path, for the query benchmarks. */
final class LocalShards implements AutoCloseable {
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final int BATCH = 5_000;

  private final ShardServer server;
  private final int numShards;
  private final int port;

  /** Aggregations read every segment each time: what a benchmark of the query paths measures. */
  LocalShards(Path dir, int numShards, ShardSettings settings) throws IOException {
    this(dir, numShards, settings, SegmentAggregates.NONE);
  }

  /** With the segments' groups of aggregations kept in {@code kept} ({@link SegmentAggregates#NONE}: none). */
  LocalShards(Path dir, int numShards, ShardSettings settings, SegmentAggregates kept) throws IOException {
    Set<Integer> ids = new TreeSet<>();
    IntStream.range(0, numShards).forEach(ids::add);
    this.server = new ShardServer(dir, ids, settings, new InetSocketAddress("127.0.0.1", 0));
    server.keptAggregations(kept);
    this.numShards = numShards;
    this.port = server.start();
  }

  ShardPlacement placement() {
    return ShardPlacement.fixed(numShards, "127.0.0.1:" + port + "=0-" + (numShards - 1));
  }

  /** Writes the rows, routed by the policy, in batches per shard; searchable when this returns. */
  void load(Iterable<TransactionLogChange> rows, RoutingPolicy policy) throws InterruptedException {
    try (ClusterClient cluster = new ClusterClient()) {
      var stub = cluster.blockingStub(new ShardAddress("127.0.0.1", port));
      Map<Integer, List<TransactionLogChange>> buffers = new HashMap<>();
      long sequence = 0;
      for (TransactionLogChange row : rows) {
        int shard = policy.shardFor(row);
        List<TransactionLogChange> buffer = buffers.computeIfAbsent(shard, s -> new ArrayList<>());
        buffer.add(row);
        if (buffer.size() == BATCH) {
          write(stub, shard, sequence++, buffer, false);
          buffer.clear();
        }
      }
      for (int shard = 0; shard < numShards; shard++) {
        write(stub, shard, sequence++, buffers.getOrDefault(shard, List.of()), true);
      }
    }
  }

  /** Waits until no shard is merging: background merges would take CPU from the measured queries. */
  void waitForMerges() throws IOException {
    for (int shard = 0; shard < numShards; shard++) {
      index(shard).waitForMerges();
    }
  }

  /** Merges every shard down to at most {@code maxSegments} segments. */
  void forceMerge(int maxSegments) throws IOException {
    for (int shard = 0; shard < numShards; shard++) {
      index(shard).forceMerge(maxSegments);
    }
  }

  ShardIndex index(int shard) {
    return server.primary(shard).index();
  }

  /** The live rows, over every shard, not yet indexed again for hot attribute keys listed after they were written. */
  long unindexedRows() throws IOException {
    long rows = 0;
    for (int shard = 0; shard < numShards; shard++) {
      rows += server.primary(shard).stats().getUnindexedRows();
    }
    return rows;
  }

  List<Integer> segmentCounts() throws IOException {
    List<Integer> counts = new ArrayList<>();
    for (int shard = 0; shard < numShards; shard++) {
      counts.add(index(shard).segmentCount());
    }
    return counts;
  }

  /** Commits every shard and returns the index bytes on disk, summed over the shards. */
  long committedIndexBytes() throws IOException {
    long bytes = 0;
    for (int shard = 0; shard < numShards; shard++) {
      server.primary(shard).commit();
      bytes += index(shard).sizeInBytes();
    }
    return bytes;
  }

  private static void write(ShardServiceGrpc.ShardServiceBlockingStub stub, int shard, long sequence,
      List<TransactionLogChange> rows, boolean waitForRefresh) {
    ShardWriteBatch batch = ShardWriteBatch.newBuilder().setShard(shard).setSender("query-bench")
        .setBatchSequence(sequence).setSentTime(System.currentTimeMillis()).setWaitForRefresh(waitForRefresh)
        .setChanges(new ArrayList<>(rows)).build();
    stub.withDeadlineAfter(5, TimeUnit.MINUTES).write(WriteRequest.newBuilder().setShard(shard)
        .setBatch(ByteString.copyFrom(BATCHES.encode(batch))).build());
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
