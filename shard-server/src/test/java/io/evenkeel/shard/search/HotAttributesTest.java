package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.AccessPath;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Exists;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Like;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frequency-based indexing with a list that changes while the shard runs: rows written under no list, under {color},
 * under {color, size} and under {size}, some rewritten by later updates, some deleted, merged into shared segments;
 * every attribute filter answers exactly what the rows' attributes say, whichever list each row was written under.
 */
class HotAttributesTest {
  private static final List<String> KEYS = List.of("color", "size", "brand");
  private static final List<String> VALUES = List.of("red", "blue", "M", "S", "b_b", "100%", "ré");

  @TempDir Path dir;

  @Test
  void everyAttributeFilterIsExactWhateverListEachRowWasIndexedUnder() throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(31);
    Map<Long, TransactionLogChange> live = new TreeMap<>();
    Map<Long, Long> versions = new TreeMap<>();
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      List<Set<String>> lists = List.of(Set.of(), Set.of("color"), Set.of("color", "size"), Set.of("size"));
      long sequence = 0;
      for (Set<String> list : lists) {
        settings.hotAttributes().set(list);
        write(shard, sequence++, randomChanges(random, live, versions, 150));
        shard.refresh();
      }
      assertThat(checkEveryFilter(shard, live)).isEqualTo(3 * (3 * VALUES.size() + 8));
      shard.index().forceMerge(1);
      shard.refresh();
      assertThat(checkEveryFilter(shard, live)).isEqualTo(3 * (3 * VALUES.size() + 8));
    } finally {
      scheduler.shutdownNow();
    }
  }

  /**
   * The rows written before their keys were listed are indexed again in the background while updates and deletes go
   * on: the shard's count of such rows falls to zero, and every filter is exact (a row re-indexed from a version
   * read before a newer change would bring the old attributes back).
   */
  @Test
  void rowsWrittenBeforeTheirKeysWereListedAreIndexedAgainWhileWritesGoOn() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    ShardSettings settings = new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 16, Set.of());
    Random random = new Random(47);
    Map<Long, TransactionLogChange> live = new TreeMap<>();
    Map<Long, Long> versions = new TreeMap<>();
    try (Shard shard = Shard.open(0, dir, settings, scheduler)) {
      for (long sequence = 0; sequence < 4; sequence++) {
        write(shard, sequence, randomChanges(random, live, versions, 150));
        shard.refresh();
      }
      settings.hotAttributes().set(Set.of("color", "size"));
      assertThat(shard.stats().getUnindexedRows()).as("rows not indexed for the new keys").isEqualTo(live.size());

      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> {
        try {
          for (long sequence = 4; writing.get(); sequence++) {
            write(shard, sequence, randomChanges(random, live, versions, 1));
            Thread.sleep(1); // slower than the re-indexing, so that most rows are left to it
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      writer.start();
      int rounds = 0;
      while (shard.stats().getUnindexedRows() > 0 && rounds++ < 1_000) {
        shard.reindexUnindexed(20);
        shard.refresh();
      }
      writing.set(false);
      writer.join();
      shard.refresh();
      assertThat(shard.stats().getUnindexedRows()).as("rows not indexed for the new keys").isZero();
      assertThat(checkEveryFilter(shard, live)).isEqualTo(3 * (3 * VALUES.size() + 8));
    } finally {
      scheduler.shutdownNow();
    }
  }

  /**
   * {@code count} inserts, updates and deletes of rows 0–399, each a newer version than the row's last, applied to
   * {@code live} (the rows' newest versions) as the shard will apply them.
   */
  private static List<TransactionLogChange> randomChanges(Random random, Map<Long, TransactionLogChange> live,
      Map<Long, Long> versions, int count) {
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long row = random.nextInt(400);
      TransactionLogChange before = live.get(row);
      long version = versions.getOrDefault(row, 0L) + 1 + random.nextInt(3);
      versions.put(row, version);
      TransactionLogChange change = random.nextInt(10) == 0 && before != null
          ? TestRows.insert(1, row, version).setOp(ChangeOp.DELETE).build()
          : TestRows.insert(1, row, version).setAttributes(attributes(random)).build();
      if (before != null || change.getOp() != ChangeOp.DELETE) {
        changes.add(change);
      }
      if (change.getOp() == ChangeOp.DELETE) {
        live.remove(row);
      } else {
        live.put(row, change);
      }
    }
    return changes;
  }

  private static void write(Shard shard, long sequence, List<TransactionLogChange> changes) throws IOException {
    ShardWriteBatch batch = TestRows.batch(0, sequence, changes, false);
    shard.write(batch, TestRows.BATCHES.encode(batch));
  }

  /** Every filter kind on every key against the rows' attributes; returns how many filters it checked. */
  private static int checkEveryFilter(Shard shard, Map<Long, TransactionLogChange> live) throws IOException {
    int queries = 0;
    for (String key : KEYS) {
      String field = "attr." + key;
      for (String value : VALUES) {
        check(shard, live, key, leaf(Filter.newBuilder().setTerm(Term.newBuilder().setField(field)
            .setValue(text(value)))), v -> v.equals(value));
        check(shard, live, key, leaf(Filter.newBuilder().setRange(Range.newBuilder().setField(field)
            .setLower(text(value)).setLowerInclusive(true))), v -> v.compareTo(value) >= 0);
        check(shard, live, key, leaf(Filter.newBuilder().setLike(Like.newBuilder().setField(field)
            .setPattern(value.charAt(0) + "%"))), v -> v.startsWith(value.substring(0, 1)));
        queries += 3;
      }
      check(shard, live, key, leaf(Filter.newBuilder().setTerms(Terms.newBuilder().setField(field)
          .addValues(text("red")).addValues(text("M")))), v -> v.equals("red") || v.equals("M"));
      check(shard, live, key, leaf(Filter.newBuilder().setTerm(Term.newBuilder().setField(field)
          .setValue(text("blue")).setAccess(AccessPath.DOC_VALUES))), v -> v.equals("blue"));
      // NOT (attr(k) >= 'S') as the query service sends it.
      check(shard, live, key, Filter.newBuilder().setBool(Bool.newBuilder()
          .addMust(leaf(Filter.newBuilder().setExists(Exists.newBuilder().setField(field))))
          .addMustNot(leaf(Filter.newBuilder().setRange(Range.newBuilder().setField(field).setLower(text("S"))
              .setLowerInclusive(true))))).build(), v -> v.compareTo("S") < 0);
      check(shard, live, key, leaf(Filter.newBuilder().setExists(Exists.newBuilder().setField(field))), v -> true);
      // SQL's attr(k) != 'red' as the query service sends it: exists and not equal.
      Filter notRed = Filter.newBuilder().setBool(Bool.newBuilder()
          .addMust(leaf(Filter.newBuilder().setExists(Exists.newBuilder().setField(field))))
          .addMustNot(leaf(Filter.newBuilder().setTerm(Term.newBuilder().setField(field).setValue(text("red"))))))
          .build();
      check(shard, live, key, notRed, v -> !v.equals("red"));
      // attr(k) IS NULL
      Filter absent = Filter.newBuilder().setBool(Bool.newBuilder()
          .addMustNot(leaf(Filter.newBuilder().setExists(Exists.newBuilder().setField(field))))).build();
      assertThat(rowIds(shard, absent)).as("attr('%s') IS NULL", key).isEqualTo(expected(live, key, null));
      // LIKE with an escaped _ and with _ as any one character.
      check(shard, live, key, leaf(Filter.newBuilder().setLike(Like.newBuilder().setField(field)
          .setPattern("b\\_b"))), v -> v.equals("b_b"));
      check(shard, live, key, leaf(Filter.newBuilder().setLike(Like.newBuilder().setField(field)
          .setPattern("1__%"))), v -> v.codePointCount(0, v.length()) >= 3 && v.startsWith("1"));
      queries += 8;
    }
    return queries;
  }

  private static String attributes(Random random) {
    if (random.nextInt(8) == 0) {
      return null;
    }
    List<String> pairs = new ArrayList<>();
    int count = random.nextInt(4);
    for (int i = 0; i < count; i++) {
      pairs.add(KEYS.get(random.nextInt(KEYS.size())) + ":" + VALUES.get(random.nextInt(VALUES.size())));
    }
    if (random.nextInt(5) == 0) {
      pairs.add("colorless:red");
    }
    return String.join(";", pairs);
  }

  private static Filter leaf(Filter.Builder filter) {
    return filter.build();
  }

  private static Value text(String value) {
    return Value.newBuilder().setStringValue(value).build();
  }

  private static void check(Shard shard, Map<Long, TransactionLogChange> live, String key, Filter filter,
      Predicate<String> matches) throws IOException {
    assertThat(rowIds(shard, filter)).as("%s", filter).isEqualTo(expected(live, key, matches));
  }

  /** The rows whose first value of {@code key} matches; with no predicate, the rows without the key. */
  private static Set<Long> expected(Map<Long, TransactionLogChange> live, String key, Predicate<String> matches) {
    Set<Long> rows = new TreeSet<>();
    live.forEach((row, change) -> {
      String value = firstValue(change.getAttributes(), key);
      if (matches == null ? value == null : value != null && matches.test(value)) {
        rows.add(row);
      }
    });
    return rows;
  }

  /** The value of the first {@code key:value} pair for {@code key}, as SQL's attr() reads it; null for none. */
  private static String firstValue(String attributes, String key) {
    if (attributes == null) {
      return null;
    }
    for (String pair : attributes.split(";")) {
      String[] parts = pair.split(":", 2);
      if (parts.length == 2 && !parts[0].isEmpty() && parts[0].equals(key)) {
        return parts[1];
      }
    }
    return null;
  }

  private static Set<Long> rowIds(Shard shard, Filter filter) throws IOException {
    Set<Long> rows = new TreeSet<>();
    ShardQueries.search(shard, Query.newBuilder().setLimit(1_000).setFilter(filter).build()).getHitsList()
        .forEach(hit -> rows.add(hit.getRowId()));
    return rows;
  }
}
