package io.evenkeel.shard.cluster;

import static io.evenkeel.shard.cluster.ClusterFixture.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shard-server processes hold 6 shards with one replica each; a third joins while a writer writes and a reader
 * counts every shard. The master moves copies onto it, one at a time by segment copying, primaries by a planned
 * handover, until every server holds 4 copies: every acknowledged row is then searchable exactly once, on the
 * primaries and on the replicas, and the servers that gave up a copy deleted its files.
 */
class AddServerIT {
  private static final int SHARDS = 6;
  private static final int SERVERS = 2;
  private static final int BATCHES = 240;

  @TempDir Path dir;
  @AutoClose private ClusterFixture fixture;

  @Test
  void copiesMoveOntoAServerAddedMidIngestWithoutLosingARow() throws Exception {
    fixture = new ClusterFixture(dir, "/evenkeel/add-server", SHARDS);
    List<ShardServerProcess> servers = new ArrayList<>();
    for (int i = 0; i < SERVERS; i++) {
      servers.add(fixture.server("server-" + i, ClusterFixture.freePort(), "--shards", (3 * i) + "-" + (3 * i + 2)));
    }
    awaitTrue("every shard has an in-sync replica", Duration.ofSeconds(90), () -> atRest(fixture.cluster.current()));

    AtomicInteger acknowledged = new AtomicInteger();
    AtomicInteger writeRetries = new AtomicInteger();
    Thread writer = new Thread(() -> {
      for (int b = 0; b < BATCHES; b++) {
        if (!fixture.write(fixture.batch(b), Duration.ofSeconds(60), writeRetries::incrementAndGet)) {
          return;
        }
        acknowledged.incrementAndGet();
      }
    });
    // The reader counts every shard on its primary, as the query service would; a count that fails is retried once
    // the state has moved on, and the failures are reported.
    AtomicBoolean reading = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger failedReads = new AtomicInteger();
    Thread reader = new Thread(() -> {
      while (reading.get()) {
        for (int shard = 0; shard < SHARDS; shard++) {
          ShardAddress primary = fixture.placement.primaryOf(shard).orElse(null);
          if (primary == null || fixture.count(primary, shard) < 0) {
            failedReads.incrementAndGet();
          }
          reads.incrementAndGet();
        }
      }
    });
    writer.start();
    reader.start();
    awaitTrue("a third of the batches acknowledged", Duration.ofSeconds(60),
        () -> acknowledged.get() >= BATCHES / 3);

    long added = System.nanoTime();
    ShardServerProcess third = fixture.server("server-" + SERVERS, ClusterFixture.freePort());
    servers.add(third);
    String addedAddress = third.address().toString();
    awaitTrue("the added server holds its share", Duration.ofSeconds(180), () -> {
      ClusterState state = fixture.cluster.current();
      return atRest(state) && state.copiesOn(addedAddress) == 4;
    });
    long balancedMs = (System.nanoTime() - added) / 1_000_000;
    writer.join(TimeUnit.SECONDS.toMillis(120));
    reading.set(false);
    reader.join();

    assertThat(acknowledged.get()).as("every batch acknowledged").isEqualTo(BATCHES);
    ClusterState state = fixture.cluster.current();
    Map<String, Long> copies = new TreeMap<>();
    Map<String, Long> primaries = new TreeMap<>();
    for (ShardServerProcess server : servers) {
      copies.put(server.address().toString(), state.copiesOn(server.address().toString()));
      primaries.put(server.address().toString(), state.primariesOn(server.address().toString()));
    }
    System.out.printf("add server: balanced %d ms after the third started; copies %s, primaries %s; %d of %d "
        + "shard reads failed, %d write retries%n", balancedMs, copies.values(), primaries.values(),
        failedReads.get(), reads.get(), writeRetries.get());
    assertThat(copies).as("copies per server").allSatisfy((server, count) -> assertThat(count).isEqualTo(4L));
    assertThat(primaries.get(addedAddress)).as("primaries on the added server").isBetween(1L, 3L);

    long total = 0;
    for (int shard = 0; shard < SHARDS; shard++) {
      ShardCopies shardCopies = state.copies(shard).orElseThrow();
      ShardAddress primary = ShardAddress.parse(shardCopies.getPrimary());
      fixture.clients.blockingStub(primary).refreshShards(RefreshShardsRequest.newBuilder().addShards(shard).build());
      long rows = fixture.count(primary, shard);
      assertThat(rows).as("shard %d on its primary", shard).isEqualTo((long) BATCHES / SHARDS * ClusterFixture.BATCH);
      total += rows;
      ShardAddress replica = ShardAddress.parse(shardCopies.getReplicas().get(0));
      int s = shard;
      awaitTrue("shard " + shard + "'s replica searches every row", Duration.ofSeconds(30),
          () -> fixture.count(replica, s) == rows);
    }
    assertThat(total).as("every acknowledged row exactly once").isEqualTo((long) BATCHES * ClusterFixture.BATCH);

    for (int i = 0; i < SERVERS; i++) {
      String address = servers.get(i).address().toString();
      for (int shard = 0; shard < SHARDS; shard++) {
        ShardCopies shardCopies = state.copies(shard).orElseThrow();
        if (!address.equals(shardCopies.getPrimary()) && !shardCopies.getReplicas().contains(address)) {
          Path moved = dir.resolve("server-" + i).resolve("shard-" + shard);
          awaitTrue("a copy moved away is deleted: " + moved, Duration.ofSeconds(30), () -> !Files.exists(moved));
        }
      }
    }
  }

  private static boolean atRest(ClusterState state) {
    return state.shards().size() == SHARDS && Rebalancer.atRest(state, 1);
  }
}
