package io.evenkeel.shard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.testing.TestRows;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shard server process, killed with -9 while it takes writes. */
class ShardServerProcessIT {
  private static final int ROWS = 60_000;
  private static final int BATCH = 1_000;
  private static final int TENANTS = 10;
  private static final int SHARDS = 2;

  @TempDir Path dir;

  /** Row i: tenant i % 10, row id i, on shard i % 2 (rows interleave so every batch goes to one shard). */
  private static ShardWriteBatch batch(int number) {
    int shard = number % SHARDS;
    List<TransactionLogChange> changes = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      long row = (long) number / SHARDS * BATCH * SHARDS + (long) i * SHARDS + shard;
      changes.add(TestRows.insert(row % TENANTS, row, 1).setTitle("row " + row).setStatus((int) (row % 5)).build());
    }
    return TestRows.batch(shard, number, changes, false);
  }

  private static void send(ShardServerProcess server, ShardWriteBatch batch) {
    server.stub().withDeadlineAfter(30, TimeUnit.SECONDS).write(WriteRequest.newBuilder()
        .setShard(batch.getShard()).setBatch(ByteString.copyFrom(TestRows.BATCHES.encode(batch))).build());
  }

  @Test
  void killedServerLosesNoAcknowledgedWriteAndDuplicatesNone() throws Exception {
    int batches = ROWS / BATCH;
    AtomicInteger acknowledged = new AtomicInteger();
    // Commits every second: the kill comes after some, so the restart opens a commit and replays the tail after it.
    ShardServerProcess first = ShardServerProcess.start(dir, "--shards", "0-1", "--durability", "request",
        "--refresh-interval-ms", "200", "--commit-interval-ms", "1000");
    Thread writer = new Thread(() -> {
      try {
        for (int b = 0; b < batches; b++) {
          send(first, batch(b));
          acknowledged.incrementAndGet();
        }
      } catch (StatusRuntimeException killed) {
        // The server died under this batch: it was not acknowledged.
      }
    });
    writer.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (acknowledged.get() < batches / 2 && System.nanoTime() < deadline && writer.isAlive()) {
      Thread.sleep(5);
    }
    first.kill();
    writer.join(TimeUnit.SECONDS.toMillis(60));
    int acked = acknowledged.get();
    assertThat(acked).as("batches acknowledged before the kill").isBetween(batches / 2, batches - 1);

    try (ShardServerProcess second = ShardServerProcess.start(dir, "--shards", "0-1", "--refresh-interval-ms", "200")) {
      Set<Long> expected = new HashSet<>();
      for (int b = 0; b < acked; b++) {
        batch(b).getChanges().forEach(c -> expected.add(c.getRowId()));
      }
      Set<Long> found = allRowIds(second);
      assertThat(found).as("acknowledged rows after the restart").containsAll(expected);

      // The client resends from its first unacknowledged batch: replays are ignored, nothing doubles.
      for (int b = acked; b < batches; b++) {
        send(second, batch(b));
      }
      Set<Long> all = allRowIds(second);
      assertThat(all).hasSize(ROWS);
      long docs = 0;
      for (int shard = 0; shard < SHARDS; shard++) {
        docs += second.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      }
      assertThat(docs).isEqualTo(ROWS);
    }
  }

  /** Every row id on both shards, failing on any id seen twice. */
  private static Set<Long> allRowIds(ShardServerProcess server) {
    for (int shard = 0; shard < SHARDS; shard++) {
      // An empty batch that waits for the refresh: everything acknowledged is searchable afterwards.
      send(server, TestRows.batch(shard, -1, List.of(), true));
    }
    Set<Long> ids = new HashSet<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      for (long tenant = 0; tenant < TENANTS; tenant++) {
        Query query = Query.newBuilder().setLimit(100_000).setTrackTotal(true)
            .setFilter(Filter.newBuilder().setTerm(Term.newBuilder().setField("tenant_id")
                .setValue(Value.newBuilder().setLongValue(tenant)))).build();
        SearchResponse response = server.stub().withDeadlineAfter(30, TimeUnit.SECONDS)
            .search(SearchRequest.newBuilder().setShard(shard).setQuery(query).build());
        assertThat(response.getHitsCount()).isEqualTo(response.getTotal());
        for (Hit hit : response.getHitsList()) {
          assertThat(ids.add(hit.getRowId())).as("row %d seen once", hit.getRowId()).isTrue();
        }
      }
    }
    return ids;
  }

  @Test
  void badRequestsGetAnErrorNamingTheProblemAndTheServerKeepsServing() throws Exception {
    try (ShardServerProcess server = ShardServerProcess.start(dir, "--shards", "0")) {
      assertThatThrownBy(() -> send(server, TestRows.batch(5, 1, List.of(), false)))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).isEqualTo("shard 5 is not hosted by this server (it hosts [0])");
          });
      assertThatThrownBy(() -> server.stub().withDeadlineAfter(10, TimeUnit.SECONDS).write(WriteRequest.newBuilder()
          .setShard(0).setBatch(ByteString.copyFromUtf8("{\"op\":\"INSERT\"}")).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).startsWith("batch for shard 0: not a single-object ShardWriteBatch");
          });
      assertThatThrownBy(() -> server.stub().withDeadlineAfter(10, TimeUnit.SECONDS).search(SearchRequest.newBuilder()
          .setShard(0).setQuery(Query.newBuilder().setFilter(Filter.newBuilder().setTerm(Term.newBuilder()
              .setField("colour").setValue(Value.newBuilder().setStringValue("red"))))).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).startsWith("unknown column 'colour'");
          });
      send(server, TestRows.batch(0, 1, List.of(TestRows.insert(1, 1, 1).build()), true));
      assertThat(server.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
          .stats(StatsRequest.newBuilder().setShard(0).build()).getDocs()).isEqualTo(1);
    }
  }
}
