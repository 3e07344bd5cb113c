package io.evenkeel.shard.engine;

import static io.evenkeel.shard.testing.TestRows.BATCHES;
import static io.evenkeel.shard.testing.TestRows.batch;
import static io.evenkeel.shard.testing.TestRows.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.index.StoredRow;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.shard.translog.Translog;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardWritesTest {
  private static final ShardSettings SETTINGS = new ShardSettings(Durability.REQUEST, 200, 60_000, 600_000, 16);
  private static final RowKey ROW = new RowKey(7, 1);

  @TempDir Path dir;
  private ScheduledExecutorService scheduler;
  private Shard shard;

  @BeforeEach
  void open() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    shard = Shard.open(0, dir, SETTINGS, scheduler);
  }

  @AfterEach
  void close() throws IOException {
    shard.close();
    scheduler.shutdownNow();
  }

  private Shard.WriteResult write(TransactionLogChange... changes) throws IOException {
    ShardWriteBatch batch = batch(0, 1, List.of(changes), false);
    return shard.write(batch, BATCHES.encode(batch));
  }

  private TransactionLogChange stored() throws IOException {
    List<byte[]> rows = shard.fetch(List.of(ROW));
    try {
      return rows.isEmpty() ? null : TestRows.ROWS.decode(rows.get(0));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void staleAndDuplicateVersionsAreIgnored() throws IOException {
    assertThat(write(insert(7, 1, 5).setTitle("v5").build()).applied()).isEqualTo(1);
    Shard.WriteResult replay = write(
        insert(7, 1, 5).setTitle("v5 again").build(),
        insert(7, 1, 3).setOp(ChangeOp.UPDATE).setTitle("v3").build());
    assertThat(replay.applied()).isZero();
    assertThat(replay.ignored()).isEqualTo(2);
    shard.refresh();
    assertThat(stored().getTitle()).isEqualTo("v5");
    assertThat(write(insert(7, 1, 6).setOp(ChangeOp.UPDATE).setTitle("v6").build()).applied()).isEqualTo(1);
    assertThat(stored().getTitle()).isEqualTo("v6");
  }

  @Test
  void aForceMergedShardKeepsItsRowsAndVersions() throws IOException {
    for (int version = 1; version <= 4; version++) {
      List<TransactionLogChange> changes = new java.util.ArrayList<>();
      changes.add(insert(7, 1, version).setTitle("v" + version).build());
      for (int row = 0; row < 2_000; row++) {
        changes.add(insert(8, version * 10_000 + row, 1).build());
      }
      write(changes.toArray(TransactionLogChange[]::new));
      shard.refresh();
    }
    assertThat(shard.index().segmentCount()).isGreaterThan(1);
    shard.index().forceMerge(1);
    assertThat(shard.index().segmentCount()).isEqualTo(1);
    assertThat(stored().getTitle()).isEqualTo("v4");
    assertThat(shard.fetch(List.of(new RowKey(8, 10_000), new RowKey(8, 41_999)))).hasSize(2);
    assertThat(write(insert(7, 1, 3).setTitle("stale").build()).ignored()).isEqualTo(1);
  }

  @Test
  void aShardReopenedWithAnotherHotListAnswersFiltersOnTheKeysOfBoth() throws IOException {
    Path hot = dir.resolve("hot");
    ShardSettings colorHot = new ShardSettings(Durability.REQUEST, 200, 60_000, 600_000, 16, java.util.Set.of("color"));
    Shard withColor = Shard.open(1, hot, colorHot, scheduler);
    ShardWriteBatch first = batch(1, 1, List.of(insert(7, 1, 1).setAttributes("color:red;size:M").build()), false);
    withColor.write(first, BATCHES.encode(first));
    withColor.commit();
    withColor.close();
    ShardSettings sizeHot = new ShardSettings(Durability.REQUEST, 200, 60_000, 600_000, 16, java.util.Set.of("size"));
    try (Shard reopened = Shard.open(1, hot, sizeHot, scheduler)) {
      ShardWriteBatch second = batch(1, 2, List.of(insert(7, 2, 1).setAttributes("color:red;size:M").build()), true);
      reopened.write(second, BATCHES.encode(second));
      for (String key : List.of("color", "size")) {
        io.evenkeel.schemas.shard.Query query = io.evenkeel.schemas.shard.Query.newBuilder().setLimit(10)
            .setTrackTotal(true).setFilter(io.evenkeel.schemas.shard.Filter.newBuilder().setTerm(
                io.evenkeel.schemas.shard.Term.newBuilder().setField("attr." + key).setValue(
                    io.evenkeel.schemas.shard.Value.newBuilder().setStringValue(key.equals("color") ? "red" : "M"))))
            .build();
        var searcher = reopened.index().searchers().acquire();
        try {
          assertThat(io.evenkeel.shard.search.ShardSearch.run(searcher, query).getTotal())
              .as("rows with attr('%s') indexed under either list", key).isEqualTo(2);
        } finally {
          reopened.index().searchers().release(searcher);
        }
      }
    }
  }

  @Test
  void aDeleteFollowedByAStaleInsertDoesNotBringTheRowBack() throws IOException {
    write(insert(7, 1, 1).setTitle("first").build());
    write(insert(7, 1, 2).setOp(ChangeOp.DELETE).build());
    assertThat(write(insert(7, 1, 1).setTitle("late duplicate").build()).ignored()).isEqualTo(1);
    shard.refresh();
    assertThat(stored()).isNull();
    assertThat(shard.index().lookup(ROW)).extracting(StoredRow::deleted, StoredRow::version).containsExactly(true, 2L);

    // The tombstone outlives a restart: it is a document, not a memory.
    shard.close();
    shard = Shard.open(0, dir, SETTINGS, scheduler);
    assertThat(write(insert(7, 1, 1).setTitle("after restart").build()).ignored()).isEqualTo(1);
    assertThat(stored()).isNull();
    assertThat(shard.stats().getDocs()).isZero();
    assertThat(shard.stats().getTombstones()).isEqualTo(1);
    assertThat(write(insert(7, 1, 3).setTitle("re-created").build()).applied()).isEqualTo(1);
    shard.refresh();
    assertThat(stored().getTitle()).isEqualTo("re-created");
  }

  @Test
  void aPartialUpdateMergesOntoTheStoredRow() throws IOException {
    write(insert(7, 1, 1).setTitle("scarf").setStatus(1).setPrice(new BigDecimal("9.99")).build());
    write(insert(7, 1, 2).setOp(ChangeOp.UPDATE).setModifiedTime(9_999).setStatus(4).setTitle(null)
        .setSetColumns(List.of("status")).build());
    TransactionLogChange row = stored();
    assertThat(row.getStatus()).isEqualTo(4);
    assertThat(row.getTitle()).isEqualTo("scarf");
    assertThat(row.getPrice()).isEqualByComparingTo("9.99");
    assertThat(row.getModifiedTime()).isEqualTo(9_999);
    assertThat(row.getVersion()).isEqualTo(2);
    assertThat(row.getSetColumns()).isNull();
  }

  @Test
  void writesAreReplayedFromTheTranslogWhenTheCommitLacksThem() throws IOException {
    write(insert(7, 1, 1).setTitle("committed").build());
    shard.commit();
    write(insert(7, 1, 2).setTitle("only in the translog").build(), insert(7, 2, 1).build());
    long maxSeqNo = shard.stats().getMaxSeqNo();
    // The files as a crash would leave them: the last commit plus the (fsynced) translog, no closing commit.
    Path copy = dir.resolveSibling(dir.getFileName() + "-crashed");
    copyTree(dir, copy);
    try (Shard recovered = Shard.open(0, copy, SETTINGS, scheduler)) {
      List<byte[]> rows = recovered.fetch(List.of(ROW, new RowKey(7, 2)));
      assertThat(rows).hasSize(2);
      assertThat(TestRows.ROWS.decode(rows.get(0)).getTitle()).isEqualTo("only in the translog");
      assertThat(recovered.stats().getMaxSeqNo()).isEqualTo(maxSeqNo);
    } catch (io.evenkeel.schemas.codec.MalformedRecordException e) {
      throw new AssertionError(e);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var paths = java.nio.file.Files.walk(from)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(path).toString());
        if (java.nio.file.Files.isDirectory(path)) {
          java.nio.file.Files.createDirectories(target);
        } else if (!path.getFileName().toString().equals("write.lock")) {
          java.nio.file.Files.copy(path, target);
        }
      }
    }
  }

  @Test
  void invalidChangesAreRejectedBeforeAnythingIsLogged() throws IOException {
    assertThatThrownBy(() -> write(insert(7, 1, 2).setOp(ChangeOp.UPDATE).setSetColumns(List.of("row_id")).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("UPDATE of row 7:1 (version 2): a partial UPDATE cannot set row_id");
    assertThatThrownBy(() -> write(insert(7, 1, 2).setOp(ChangeOp.UPDATE).setSetColumns(List.of("colour")).build()))
        .hasMessageStartingWith("unknown column 'colour' of transaction_logs");
    assertThatThrownBy(() -> write(insert(7, 1, 1).build(), insert(7, 2, 1).setSellerNick("x".repeat(40_000))
        .build()))
        .hasMessage("INSERT of row 7:2 (version 1): seller_nick is 40000 bytes of UTF-8; at most 32766");
    assertThatThrownBy(() -> write(insert(-7, 1, 1).build()))
        .hasMessage("INSERT of row -7:1 (version 1): tenant_id and row_id must not be negative");
    ShardWriteBatch wrongShard = batch(3, 1, List.of(insert(7, 1, 1).build()), false);
    assertThatThrownBy(() -> shard.write(wrongShard, BATCHES.encode(wrongShard)))
        .hasMessage("batch for shard 3 sent to shard 0");
    assertThat(shard.stats().getMaxSeqNo()).isZero();
  }

  @Test
  void aLoggedChangeLuceneRefusesIsCountedAndRecoveryGoesOn() throws Exception {
    write(insert(7, 1, 1).build());
    shard.commit();
    shard.close();
    // As a translog written by an older version, or around the checks, could hold it: a 40 kB keyword between two
    // valid changes, in the next sequence numbers.
    ShardWriteBatch logged = batch(0, 2, List.of(insert(7, 2, 1).build(),
        insert(7, 3, 1).setSellerNick("x".repeat(40_000)).build(), insert(7, 4, 1).build()), false);
    try (Translog translog = Translog.open(dir.resolve("translog"))) {
      translog.append(2, BATCHES.encode(logged));
      translog.sync();
    }
    shard = Shard.open(0, dir, SETTINGS, scheduler);
    assertThat(shard.fetch(List.of(new RowKey(7, 2), new RowKey(7, 3), new RowKey(7, 4)))).hasSize(2);
    assertThat(shard.stats().getUnappliedChanges()).isEqualTo(1);
    assertThat(shard.stats().getMaxSeqNo()).isEqualTo(4);
    write(insert(7, 5, 1).build());
    assertThat(shard.fetch(List.of(new RowKey(7, 5)))).hasSize(1);
  }

  /** With a write capacity, a shard indexes no faster than it: four batches of 500 at 1,000 a second take 2 s. */
  @Test
  void aShardWithAWriteCapacityIndexesNoFasterThanIt() throws Exception {
    Shard limited = Shard.open(1, dir.resolve("limited"), SETTINGS.withWriteCapacity(1_000), scheduler);
    try {
      long start = System.nanoTime();
      for (int b = 0; b < 4; b++) {
        List<TransactionLogChange> changes = new java.util.ArrayList<>();
        for (int i = 0; i < 500; i++) {
          changes.add(insert(7, b * 500L + i, 1).build());
        }
        ShardWriteBatch batch = batch(1, b + 1, changes, false);
        assertThat(limited.write(batch, BATCHES.encode(batch)).applied()).isEqualTo(500);
      }
      assertThat((System.nanoTime() - start) / 1e9).isGreaterThanOrEqualTo(2);
    } finally {
      limited.close();
    }
    assertThatThrownBy(() -> SETTINGS.withWriteCapacity(-1)).hasMessageContaining("writeCapacity must be >= 0");
  }
}
