package io.evenkeel.shard.replication;

import static io.evenkeel.shard.testing.TestRows.BATCHES;
import static io.evenkeel.shard.testing.TestRows.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.AddReplicaRequest;
import io.evenkeel.schemas.shard.AddReplicaResponse;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.NewNrtPointRequest;
import io.evenkeel.schemas.shard.NewNrtPointResponse;
import io.evenkeel.schemas.shard.PreCopyMergeRequest;
import io.evenkeel.schemas.shard.PreCopyMergeResponse;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.ReplicaHeartbeatRequest;
import io.evenkeel.schemas.shard.ReplicaHeartbeatResponse;
import io.evenkeel.schemas.shard.ReplicateRequest;
import io.evenkeel.schemas.shard.ReplicateResponse;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.ShardServiceGrpc.ShardServiceBlockingStub;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary and a replica of one shard on two servers: the replica copies the primary's segment files, so that the
 * same query gives the same answer on both, and its translog holds every acknowledged write, so that promoted it
 * loses none.
 */
class ReplicationTest {
  private static final int SHARD = 3;
  private static final int TENANTS = 40;

  @TempDir Path dir;
  private final ClusterClient cluster = new ClusterClient();
  private final List<ShardServer> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    channels.forEach(ManagedChannel::shutdownNow);
    cluster.close();
    for (ShardServer server : servers) {
      server.close();
    }
  }

  private ShardServer start(String name, Set<Integer> primaries, Map<Integer, String> replicaOf, long refreshMs)
      throws Exception {
    return start(name, primaries, replicaOf, refreshMs, false);
  }

  private ShardServer start(String name, Set<Integer> primaries, Map<Integer, String> replicaOf, long refreshMs,
      boolean logical) throws Exception {
    ShardServer server = new ShardServer(dir.resolve(name), primaries, replicaOf, Replicas.ALL_IN_SYNC,
        new ShardSettings(Durability.REQUEST, 200, refreshMs, 1_000, 16, Set.of(), logical),
        new InetSocketAddress("127.0.0.1", 0), null);
    server.start();
    servers.add(server);
    return server;
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition still false after 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private ShardServiceBlockingStub stub(ShardServer server) {
    return cluster.blockingStub(new ShardAddress("127.0.0.1", server.port()));
  }

  /** Writes rows {@code from..to-1} (each row's tenant is row mod TENANTS), updating every fifth and deleting 1%. */
  private static void write(ShardServiceBlockingStub primary, Random random, int from, int to) {
    int batchSize = 500;
    for (int start = from; start < to; start += batchSize) {
      List<TransactionLogChange> changes = new ArrayList<>();
      for (int row = start; row < Math.min(to, start + batchSize); row++) {
        changes.add(TestRows.random(random, row % TENANTS, row));
        if (row % 5 == 0) {
          changes.add(TransactionLogChange.newBuilder(TestRows.random(random, row % TENANTS, row)).setVersion(2)
              .setOp(ChangeOp.UPDATE).build());
        }
        if (row % 100 == 7) {
          changes.add(TestRows.insert(row % TENANTS, row, 3).setOp(ChangeOp.DELETE).build());
        }
      }
      primary.write(WriteRequest.newBuilder().setShard(SHARD)
          .setBatch(ByteString.copyFrom(BATCHES.encode(batch(SHARD, start, changes, false)))).build());
    }
  }

  private static long liveRows(int from, int to) {
    long live = 0;
    for (int row = from; row < to; row++) {
      live += row % 100 == 7 ? 0 : 1;
    }
    return live;
  }

  /**
   * A shard's answer, its groups in key order: a shard lists groups as its segments meet them, which a replica's
   * searcher may do in another order (the query service sorts them).
   */
  private static SearchResponse search(ShardServiceBlockingStub server, Query query) {
    SearchResponse response = server.search(SearchRequest.newBuilder().setShard(SHARD).setQuery(query).build());
    List<Bucket> buckets = new ArrayList<>(response.getBucketsList());
    buckets.sort(Comparator.comparing(bucket -> bucket.getKeyList().toString()));
    return response.toBuilder().clearTookMicros().clearBuckets().addAllBuckets(buckets).build();
  }

  private static long count(ShardServiceBlockingStub server) {
    return search(server, Query.newBuilder().setTrackTotal(true).setFilter(Filter.newBuilder()
        .setMatchAll(io.evenkeel.schemas.shard.MatchAll.getDefaultInstance())).build()).getTotal();
  }

  private static ShardStats stats(ShardServiceBlockingStub server) {
    return server.stats(StatsRequest.newBuilder().setShard(SHARD).build());
  }

  private static Query randomQuery(Random random) {
    Filter tenant = Filter.newBuilder().setTerm(Term.newBuilder().setField("tenant_id")
        .setValue(Value.newBuilder().setLongValue(random.nextInt(TENANTS)))).build();
    long from = random.nextInt(10_000);
    Filter created = Filter.newBuilder().setRange(Range.newBuilder().setField("created_time")
        .setLower(Value.newBuilder().setLongValue(from)).setLowerInclusive(true)
        .setUpper(Value.newBuilder().setLongValue(from + random.nextInt(5_000))).setUpperInclusive(false)).build();
    Filter filter = switch (random.nextInt(3)) {
      case 0 -> tenant;
      case 1 -> created;
      default -> Filter.newBuilder().setBool(io.evenkeel.schemas.shard.Bool.newBuilder().addMust(tenant)
          .addMust(created)).build();
    };
    Query.Builder query = Query.newBuilder().setFilter(filter).setTrackTotal(true);
    if (random.nextBoolean()) {
      query.setLimit(20).setIncludeRows(true)
          .addSort(SortField.newBuilder().setField("created_time").setDescending(random.nextBoolean()))
          .addSort(SortField.newBuilder().setField("row_id"));
    } else {
      query.addGroupBy("status")
          .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.COUNT))
          .addAggregations(Aggregation.newBuilder().setFunction(Aggregation.Function.SUM).setField("price"));
    }
    return query.build();
  }

  @Test
  void aReplicaAnswersAsItsPrimaryAndKeepsEveryAcknowledgedWrite() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 100);
    ShardServiceBlockingStub onPrimary = stub(primary);
    Random random = new Random(21);
    // Rows before the replica exists reach it as segment files; rows after, through its translog as well.
    write(onPrimary, random, 0, 5_000);
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), 100);
    ShardServiceBlockingStub onReplica = stub(replica);
    awaitTrue(() -> stats(onReplica).getRole().equals("REPLICA"));
    write(onPrimary, random, 5_000, 100_000);
    primary.primary(SHARD).refresh();

    awaitTrue(() -> count(onReplica) == liveRows(0, 100_000));
    assertThat(count(onPrimary)).isEqualTo(liveRows(0, 100_000));
    for (int i = 0; i < 200; i++) {
      Query query = randomQuery(random);
      assertThat(search(onReplica, query)).as("query %s", query).isEqualTo(search(onPrimary, query));
    }
    ShardStats primaryStats = stats(onPrimary);
    assertThat(primaryStats.getReplicasList()).singleElement().satisfies(r -> assertThat(r.getInSync()).isTrue());
    assertThat(stats(onReplica).getSegments()).isEqualTo(primaryStats.getSegments());
    // Its copied files: at least the primary's searchable segments (a copy may hold a newer point's too).
    assertThat(stats(onReplica).getBytes()).isPositive().isGreaterThanOrEqualTo(primaryStats.getBytes() / 2);

    // A replica refuses writes: only the primary orders them.
    StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> write(onReplica, random, 100_000, 100_001));
    assertThat(refused.getStatus().getDescription()).contains("replica of shard " + SHARD);
  }

  /**
   * A merge's result is copied ahead, while the fresh small points keep reaching the replica: the time from a write's
   * acknowledgement to its row being searchable on the replica stays near the refresh interval during a forced merge.
   */
  @Test
  void freshPointsReachTheReplicaWhileAMergedSegmentIsCopied() throws Exception {
    long refreshMs = 200;
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), refreshMs);
    ShardServiceBlockingStub onPrimary = stub(primary);
    Random random = new Random(3);
    for (int i = 0; i < 20; i++) {
      write(onPrimary, random, i * 2_000, (i + 1) * 2_000);
      primary.primary(SHARD).refresh(); // many segments for the merge
    }
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), refreshMs);
    ShardServiceBlockingStub onReplica = stub(replica);
    awaitTrue(() -> stats(onReplica).getRole().equals("REPLICA"));

    Thread merge = new Thread(() -> {
      try {
        primary.primary(SHARD).index().forceMerge(1);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    long mergeStarted = System.nanoTime();
    merge.start();
    List<Long> lagsMs = new ArrayList<>();
    int row = 40_000;
    while (merge.isAlive() || lagsMs.size() < 5) {
      write(onPrimary, random, row, row + 50);
      long acknowledged = System.nanoTime();
      long target = row + 49;
      Query newest = Query.newBuilder().setTrackTotal(true).setFilter(Filter.newBuilder().setTerm(Term.newBuilder()
          .setField("row_id").setValue(Value.newBuilder().setLongValue(target)))).build();
      awaitTrue(() -> search(onReplica, newest).getTotal() == 1);
      lagsMs.add((System.nanoTime() - acknowledged) / 1_000_000);
      row += 50;
    }
    merge.join();
    long mergeMs = (System.nanoTime() - mergeStarted) / 1_000_000;
    List<Long> sorted = lagsMs.stream().sorted().toList();
    long median = sorted.get(sorted.size() / 2);
    System.out.printf("forced merge of 40,000 rows took %d ms; %d writes during it became searchable on the replica "
        + "in median %d ms, max %d ms (refresh interval %d ms)%n", mergeMs, sorted.size(), median,
        sorted.get(sorted.size() - 1), refreshMs);
    // Two refresh intervals, plus slack for a busy 2-core machine that also runs the merge: far below a wait for
    // the merge's own copy.
    assertThat(median).isLessThan(2 * refreshMs + 3_000);
    awaitTrue(() -> stats(onReplica).getSegments() == stats(onPrimary).getSegments());
  }

  /**
   * Logical replication: the replica copies the files once, when it joins, then indexes every forwarded write itself.
   * Its segments differ from the primary's, its answers do not; promoted, it keeps every acknowledged write.
   */
  @Test
  void aLogicalReplicaIndexesItselfAndAnswersAsItsPrimary() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 100);
    ShardServiceBlockingStub onPrimary = stub(primary);
    Random random = new Random(5);
    write(onPrimary, random, 0, 4_000);
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), 100, true);
    ShardServiceBlockingStub onReplica = stub(replica);
    awaitTrue(() -> stats(onReplica).getRole().equals("REPLICA"));
    write(onPrimary, random, 4_000, 12_000);
    primary.primary(SHARD).refresh();
    awaitTrue(() -> count(onReplica) == liveRows(0, 12_000));
    for (int i = 0; i < 100; i++) {
      Query query = randomQuery(random);
      assertThat(search(onReplica, query)).as("query %s", query).isEqualTo(search(onPrimary, query));
    }
    long term = stats(onPrimary).getPrimaryTerm();
    servers.remove(primary);
    primary.close();
    replica.promote(SHARD, term + 1);
    write(stub(replica), random, 12_000, 13_000);
    replica.primary(SHARD).refresh();
    assertThat(count(stub(replica))).isEqualTo(liveRows(0, 13_000));
  }

  @Test
  void aPromotedReplicaHoldsEveryAcknowledgedWriteEvenUnrefreshed() throws Exception {
    // Refreshes once a minute: the acknowledged writes below reach the replica only through its translog.
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 60_000);
    // A primary that has committed many times: its translog generations are far ahead of the new replica's, whose
    // own translog is what the promotion must replay.
    for (int i = 0; i < 20; i++) {
      primary.primary(SHARD).commit();
    }
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), 60_000);
    ShardServiceBlockingStub onPrimary = stub(primary);
    awaitTrue(() -> stats(stub(replica)).getRole().equals("REPLICA"));
    Random random = new Random(7);
    write(onPrimary, random, 0, 3_000);
    assertThat(count(stub(replica))).isZero();

    long term = stats(onPrimary).getPrimaryTerm();
    servers.remove(primary);
    primary.close();
    replica.promote(SHARD, term + 1);

    ShardServiceBlockingStub onNewPrimary = stub(replica);
    assertThat(count(onNewPrimary)).isEqualTo(liveRows(0, 3_000));
    assertThat(stats(onNewPrimary).getRole()).isEqualTo("PRIMARY");
    assertThat(stats(onNewPrimary).getPrimaryTerm()).isEqualTo(term + 1);
    write(onNewPrimary, random, 3_000, 4_000);
    replica.primary(SHARD).refresh();
    assertThat(count(onNewPrimary)).isEqualTo(liveRows(0, 4_000));
  }

  /**
   * A replica promoted after it copied a point skips the translog's writes that point holds and replays the ones
   * after it: none is lost (a threshold set too high would drop them), none is applied twice.
   */
  @Test
  void aPromotedReplicaReplaysOnlyTheWritesAfterThePointItCopied() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 60_000);
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), 60_000);
    ShardServiceBlockingStub onPrimary = stub(primary);
    awaitTrue(() -> stats(stub(replica)).getRole().equals("REPLICA"));
    Random random = new Random(11);
    write(onPrimary, random, 0, 3_000);
    primary.primary(SHARD).refresh();
    awaitTrue(() -> count(stub(replica)) == liveRows(0, 3_000));
    write(onPrimary, random, 3_000, 5_000); // in the replica's translog only

    long term = stats(onPrimary).getPrimaryTerm();
    servers.remove(primary);
    primary.close();
    replica.promote(SHARD, term + 1);
    assertThat(count(stub(replica))).isEqualTo(liveRows(0, 5_000));
  }

  /**
   * A replica that its primary no longer knows joins again, but keeps its copy and its translog until a primary takes
   * it back: here the old primary's address answers "not a replica of this primary" and refuses the join, and the
   * replica, still the shard's only in-sync copy, is promoted with every acknowledged write.
   */
  @Test
  void aReplicaRefusedByItsPrimaryKeepsEveryWriteUntilTakenBackSoItCanBePromoted() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 60_000);
    ShardServer replica = start("replica", Set.of(), Map.of(SHARD, "127.0.0.1:" + primary.port()), 60_000);
    String replicaAddress = "127.0.0.1:" + replica.port();
    awaitTrue(() -> primary.primary(SHARD).replicaInSync(replicaAddress));
    Random random = new Random(13);
    write(stub(primary), random, 0, 3_000); // in the replica's translog only: no refresh for a minute
    long term = stats(stub(primary)).getPrimaryTerm();
    int port = primary.port();
    servers.remove(primary);
    primary.close();

    AtomicInteger refusedJoins = new AtomicInteger();
    Server refusing = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addService(new ReplicationServiceGrpc.ReplicationServiceImplBase() {
          @Override
          public void replicaHeartbeat(ReplicaHeartbeatRequest request,
              StreamObserver<ReplicaHeartbeatResponse> response) {
            response.onError(Status.FAILED_PRECONDITION.withDescription("not a replica of this primary")
                .asRuntimeException());
          }

          @Override
          public void addReplica(AddReplicaRequest request, StreamObserver<AddReplicaResponse> response) {
            refusedJoins.incrementAndGet();
            response.onError(Status.UNAVAILABLE.withDescription("not taking replicas").asRuntimeException());
          }
        }).build().start();
    try {
      awaitTrue(() -> refusedJoins.get() >= 2);
      replica.promote(SHARD, term + 1);
      assertThat(count(stub(replica))).isEqualTo(liveRows(0, 3_000));
    } finally {
      refusing.shutdownNow();
    }
  }

  /**
   * A replica that never finishes copying a merged segment holds up neither the primary's close (which waits for
   * merges) nor, being closed, anything after it: the copy under way is cancelled.
   */
  @Test
  void aPrimaryClosesPromptlyWhileAReplicaIsStuckCopyingAMergedSegment() throws Exception {
    CountDownLatch preCopyStarted = new CountDownLatch(1);
    Server stuckReplica = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new ReplicationServiceGrpc.ReplicationServiceImplBase() {
          @Override
          public void replicate(ReplicateRequest request, StreamObserver<ReplicateResponse> response) {
            response.onNext(ReplicateResponse.getDefaultInstance());
            response.onCompleted();
          }

          @Override
          public void newNrtPoint(NewNrtPointRequest request, StreamObserver<NewNrtPointResponse> response) {
            response.onNext(NewNrtPointResponse.getDefaultInstance());
            response.onCompleted();
          }

          @Override
          public void preCopyMerge(PreCopyMergeRequest request, StreamObserver<PreCopyMergeResponse> response) {
            preCopyStarted.countDown(); // and never answers
          }
        }).build().start();
    try {
      ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 60_000);
      Shard shard = primary.primary(SHARD);
      String address = "127.0.0.1:" + stuckReplica.getPort();
      shard.addReplica(address);
      assertThat(shard.replicaHeartbeat(address, stats(stub(primary)).getPrimaryTerm(), Long.MAX_VALUE)).isTrue();
      assertThat(shard.replicaInSync(address)).isTrue();
      Random random = new Random(11);
      for (int i = 0; i < 10; i++) {
        write(stub(primary), random, i * 500, (i + 1) * 500);
        shard.refresh();
      }
      Thread merge = new Thread(() -> {
        try {
          shard.index().forceMerge(1);
        } catch (IOException | RuntimeException e) {
          // the close below aborts it
        }
      });
      merge.start();
      assertThat(preCopyStarted.await(30, TimeUnit.SECONDS)).as("the merged segment is offered to the replica")
          .isTrue();
      servers.remove(primary);
      assertTimeoutPreemptively(Duration.ofSeconds(20), primary::close);
      merge.join(20_000);
      assertThat(merge.isAlive()).isFalse();
    } finally {
      stuckReplica.shutdownNow();
    }
  }

  /**
   * A call for a copy a server does not hold in that role is transient (UNAVAILABLE: the caller follows the cluster
   * state), unlike one the copy refuses (FAILED_PRECONDITION: a replica this primary does not forward to joins again).
   */
  @Test
  void aServerWithoutTheCopyAnswersUnavailableAndAPrimaryRefusesAStrangerAsFailedPrecondition() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 1_000);
    ShardServer other = start("other", Set.of(), Map.of(), 1_000);
    ReplicaHeartbeatRequest heartbeat = ReplicaHeartbeatRequest.newBuilder().setShard(SHARD).setHost("127.0.0.1")
        .setPort(1).setPrimaryTerm(stats(stub(primary)).getPrimaryTerm()).build();
    assertThatThrownBy(() -> replication(other).replicaHeartbeat(heartbeat))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).contains("holds no primary of shard " + SHARD);
        });
    assertThatThrownBy(() -> replication(primary).replicaHeartbeat(heartbeat))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("is not a replica of this primary");
        });
  }

  /**
   * The replication port reads only the files a replica holds a lease on, in bounded chunks: not a path out of the
   * shard's directory, not an absolute one, not a file outside the leased copy state, not without a lease, not a
   * length the server would have to allocate whole; and the server answers every such call and keeps serving.
   */
  @Test
  void readFileServesOnlyTheLeasedCopyStatesFilesInBoundedChunks() throws Exception {
    ShardServer primary = start("primary", Set.of(SHARD), Map.of(), 100);
    write(stub(primary), new Random(7), 0, 1_000);
    // Once refreshed, a point holds segment files.
    awaitTrue(() -> stub(primary).stats(StatsRequest.newBuilder().setShard(SHARD).build()).getDocs() > 0);
    ReplicationServiceGrpc.ReplicationServiceBlockingStub replication = replication(primary);
    var lease = replication.acquireCopyState(io.evenkeel.schemas.shard.AcquireCopyStateRequest.newBuilder()
        .setShard(SHARD).build());
    String leased = lease.getPoint().getFilesMap().keySet().iterator().next();
    java.util.function.BiFunction<String, Long, io.evenkeel.schemas.shard.ReadFileRequest.Builder> read =
        (file, session) -> io.evenkeel.schemas.shard.ReadFileRequest.newBuilder().setShard(SHARD).setFile(file)
            .setOffset(0).setLength(16).setSession(session);

    assertThat(replication.readFile(read.apply(leased, lease.getSession()).build()).getData().size())
        .isPositive();
    for (String file : List.of("../../../../etc/passwd", "/etc/passwd", "..", "shard-0/../x")) {
      assertThatThrownBy(() -> replication.readFile(read.apply(file, lease.getSession()).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
    assertThatThrownBy(() -> replication.readFile(read.apply(leased, lease.getSession())
        .setLength(Integer.MAX_VALUE).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    // A file of the directory the lease does not hold (the write lock), no lease (session 0 outside a merge's
    // copy), a lease that does not exist.
    for (var request : List.of(read.apply("write.lock", lease.getSession()), read.apply(leased, 0L),
        read.apply(leased, lease.getSession() + 1_000))) {
      assertThatThrownBy(() -> replication.readFile(request.build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }
    // Still serving.
    awaitTrue(() -> stub(primary).stats(StatsRequest.newBuilder().setShard(SHARD).build()).getDocs() > 0);
  }

  private ReplicationServiceGrpc.ReplicationServiceBlockingStub replication(ShardServer server) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    channels.add(channel);
    return ReplicationServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }
}
