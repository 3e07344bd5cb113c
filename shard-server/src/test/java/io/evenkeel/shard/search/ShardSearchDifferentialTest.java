package io.evenkeel.shard.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.shard.AccessPath;
import io.evenkeel.schemas.shard.AggregateValue;
import io.evenkeel.schemas.shard.Aggregation;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Bucket;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.schemas.shard.Exists;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Like;
import io.evenkeel.schemas.shard.Match;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.testing.Reference;
import io.evenkeel.shard.testing.ShardQueries;
import io.evenkeel.shard.testing.TestRows;
import io.evenkeel.shard.translog.Durability;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Randomized queries on one shard against a brute-force filter over the same rows. */
class ShardSearchDifferentialTest {
  private static final long SEED = 20261122L;
  private static final int ROWS = 3_000;
  private static final List<String> NUMERIC_TERM_FIELDS = List.of("tenant_id", "status", "buyer_id", "quantity", "group_id");
  private static final List<String> RANGE_FIELDS = List.of("created_time", "modified_time", "price", "quantity", "buyer_id");
  private static final List<String> KEYWORDS = List.of("seller_nick", "buyer_nick");
  private static final List<String> SORTABLE = List.of("tenant_id", "created_time", "status", "seller_nick", "price",
      "buyer_nick", "quantity", "group_id");
  private static final List<String> NULLABLE = List.of("status", "buyer_id", "seller_nick", "buyer_nick", "title",
      "price", "quantity", "group_id");

  @TempDir static Path dir;
  private static ScheduledExecutorService scheduler;
  private static Shard shard;
  private static final Map<RowKey, TransactionLogChange> rows = new HashMap<>();

  @BeforeAll
  static void load() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    shard = Shard.open(0, dir, new ShardSettings(Durability.INTERVAL, 200, 60_000, 600_000, 32), scheduler);
    Random random = new Random(SEED);
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      TransactionLogChange row = TestRows.random(random, 1 + random.nextInt(6), i);
      changes.add(row);
      rows.put(new RowKey(row.getTenantId(), row.getRowId()), row);
    }
    List<RowKey> keys = new ArrayList<>(rows.keySet());
    keys.sort(Comparator.comparing(RowKey::tenantId).thenComparing(RowKey::rowId));
    for (int i = 0; i < 300; i++) {
      TransactionLogChange old = rows.get(keys.get(random.nextInt(keys.size())));
      if (old == null) {
        continue;
      }
      int status = random.nextInt(5);
      changes.add(TestRows.insert(old.getTenantId(), old.getRowId(), old.getVersion() + 1).setOp(ChangeOp.UPDATE)
          .setStatus(status).setSetColumns(List.of("status")).build());
      TransactionLogChange updated = TransactionLogChange.newBuilder(old).setStatus(status)
          .setVersion(old.getVersion() + 1).setModifiedTime(1_000 + old.getRowId()).setOp(ChangeOp.UPDATE).build();
      rows.put(new RowKey(old.getTenantId(), old.getRowId()), updated);
    }
    for (int i = 0; i < 150; i++) {
      RowKey key = keys.get(random.nextInt(keys.size()));
      TransactionLogChange old = rows.remove(key);
      if (old != null) {
        changes.add(TestRows.insert(key.tenantId(), key.rowId(), old.getVersion() + 1).setOp(ChangeOp.DELETE).build());
      }
    }
    for (int from = 0; from < changes.size(); from += 500) {
      ShardWriteBatch batch = TestRows.batch(0, from, changes.subList(from, Math.min(changes.size(), from + 500)), false);
      shard.write(batch, TestRows.BATCHES.encode(batch));
    }
    shard.refresh();
  }

  @AfterAll
  static void close() throws IOException {
    shard.close();
    scheduler.shutdownNow();
  }

  @Test
  void randomizedQueriesMatchBruteForce() throws IOException {
    Random random = new Random(SEED + 1);
    int nonEmpty = 0;
    for (int i = 0; i < 400; i++) {
      Query query = randomQuery(random);
      SearchResponse response = search(query);
      List<TransactionLogChange> expected = new ArrayList<>();
      for (TransactionLogChange row : rows.values()) {
        if (!query.hasFilter() || Reference.matches(query.getFilter(), row)) {
          expected.add(row);
        }
      }
      nonEmpty += expected.isEmpty() ? 0 : 1;
      String context = "query #" + i + ":\n" + query;
      assertThat(response.getTotal()).as(context).isEqualTo(expected.size());
      checkHits(query, response, expected, context);
      if (query.getAggregationsCount() > 0) {
        checkBuckets(query, response, expected, context);
      }
    }
    assertThat(nonEmpty).as("queries that matched some rows").isGreaterThan(150);
  }

  @Test
  void badQueriesNameTheProblem() {
    assertThat(error(Query.newBuilder().setFilter(term("colour", Value.newBuilder().setStringValue("red"))).build()))
        .startsWith("unknown column 'colour' of transaction_logs");
    assertThat(error(Query.newBuilder().setFilter(term("status", Value.newBuilder().setStringValue("open"))).build()))
        .isEqualTo("column status is INT; 'open' is not a number");
    assertThat(error(Query.newBuilder().setFilter(term("seller_nick", Value.newBuilder().setLongValue(3))).build()))
        .isEqualTo("column seller_nick is KEYWORD; a filter value must be a string, got long 3");
    assertThat(error(Query.newBuilder().addSort(SortField.newBuilder().setField("title")).setLimit(3).build()))
        .isEqualTo("cannot sort by title (TEXT)");
    assertThat(error(Query.newBuilder().setLimit(-1).build())).isEqualTo("limit must be in [0, 100000]; got: -1");
    assertThat(error(Query.newBuilder().addAggregations(Aggregation.newBuilder()
        .setFunction(Aggregation.Function.SUM).setField("seller_nick")).build()))
        .isEqualTo("SUM needs a numeric column; seller_nick is KEYWORD");
  }

  private static String error(Query query) {
    try {
      search(query);
      return "no error";
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static SearchResponse search(Query query) throws IOException {
    return ShardQueries.search(shard, query);
  }

  private static void checkHits(Query query, SearchResponse response, List<TransactionLogChange> expected,
      String context) {
    Comparator<TransactionLogChange> order = (a, b) -> 0;
    for (SortField sort : query.getSortList()) {
      Comparator<TransactionLogChange> byField =
          Comparator.comparing(row -> (Object) Reference.value(row, sort.getField()), Reference.NULLS_LOW);
      order = order.thenComparing(sort.getDescending() ? byField.reversed() : byField);
    }
    order = order.thenComparing(TransactionLogChange::getTenantId).thenComparing(TransactionLogChange::getRowId);
    expected.sort(order);
    List<String> expectedIds = new ArrayList<>();
    for (TransactionLogChange row : expected.subList(0, Math.min(expected.size(), query.getLimit()))) {
      expectedIds.add(row.getTenantId() + ":" + row.getRowId());
    }
    List<String> actualIds = new ArrayList<>();
    for (Hit hit : response.getHitsList()) {
      actualIds.add(hit.getTenantId() + ":" + hit.getRowId());
      TransactionLogChange row = rows.get(new RowKey(hit.getTenantId(), hit.getRowId()));
      if (row == null) {
        continue; // reported by the id comparison below
      }
      for (int s = 0; s < query.getSortCount(); s++) {
        assertThat(same(toObject(hit.getSortValues(s)), Reference.value(row, query.getSort(s).getField())))
            .as(context + "\nsort value " + s + " of " + row.getTenantId() + ":" + row.getRowId()).isTrue();
      }
      if (query.getIncludeRows()) {
        try {
          assertThat(TestRows.ROWS.decode(hit.getRow().toByteArray())).as(context).isEqualTo(row);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    }
    assertThat(actualIds).as(context).containsExactlyElementsOf(expectedIds);
  }

  private static void checkBuckets(Query query, SearchResponse response, List<TransactionLogChange> expected,
      String context) {
    Map<List<Object>, List<TransactionLogChange>> groups = new LinkedHashMap<>();
    for (TransactionLogChange row : expected) {
      List<Object> key = new ArrayList<>();
      for (String field : query.getGroupByList()) {
        key.add(Reference.value(row, field));
      }
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
    }
    if (groups.isEmpty() && query.getGroupByCount() == 0) {
      groups.put(List.of(), List.of());
    }
    assertThat(response.getBucketsCount()).as(context + "\nbuckets").isEqualTo(groups.size());
    for (Bucket bucket : response.getBucketsList()) {
      List<Object> key = new ArrayList<>();
      bucket.getKeyList().forEach(v -> key.add(toObject(v)));
      List<TransactionLogChange> members = find(groups, key);
      assertThat(members).as(context + "\nbucket " + key).isNotNull();
      assertThat(bucket.getDocCount()).as(context).isEqualTo(members.size());
      for (int a = 0; a < query.getAggregationsCount(); a++) {
        checkAggregate(query.getAggregations(a), bucket.getValues(a), members, context + "\nbucket " + key);
      }
    }
  }

  private static List<TransactionLogChange> find(Map<List<Object>, List<TransactionLogChange>> groups, List<Object> key) {
    for (var entry : groups.entrySet()) {
      boolean equal = entry.getKey().size() == key.size();
      for (int i = 0; equal && i < key.size(); i++) {
        equal = same(key.get(i), entry.getKey().get(i));
      }
      if (equal) {
        return entry.getValue();
      }
    }
    return null;
  }

  private static void checkAggregate(Aggregation aggregation, AggregateValue actual, List<TransactionLogChange> rows,
      String context) {
    String what = context + "\n" + aggregation.getFunction() + "(" + aggregation.getField() + ")";
    if (aggregation.getField().isEmpty()) {
      assertThat(actual.getCount()).as(what).isEqualTo(rows.size());
      return;
    }
    List<Object> values = new ArrayList<>();
    for (TransactionLogChange row : rows) {
      Object value = Reference.value(row, aggregation.getField());
      if (value != null) {
        values.add(value);
      }
    }
    assertThat(actual.getCount()).as(what).isEqualTo(values.size());
    switch (aggregation.getFunction()) {
      case SUM, AVG -> {
        BigDecimal sum = BigDecimal.ZERO;
        for (Object v : values) {
          sum = sum.add(v instanceof BigDecimal d ? d : BigDecimal.valueOf((Long) v));
        }
        assertThat(same(toObject(actual.getSum()), values.isEmpty() ? null : sum))
            .as(what + ": got " + actual.getSum() + ", expected " + sum).isTrue();
      }
      case MIN -> assertThat(same(toObject(actual.getMin()),
          values.stream().min(Reference.NULLS_LOW).orElse(null))).as(what).isTrue();
      case MAX -> assertThat(same(toObject(actual.getMax()),
          values.stream().max(Reference.NULLS_LOW).orElse(null))).as(what).isTrue();
      case DISTINCT_VALUES -> {
        Set<Object> distinct = new HashSet<>();
        actual.getDistinctValuesList().forEach(v -> distinct.add(toObject(v)));
        assertThat(distinct).as(what).isEqualTo(new HashSet<>(values));
      }
      default -> { }
    }
  }

  /** Equal values, decimals by value. */
  private static boolean same(Object a, Object b) {
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.compareTo(y) == 0;
    }
    if (a instanceof BigDecimal x && b instanceof Long y) {
      return x.compareTo(BigDecimal.valueOf(y)) == 0;
    }
    if (a instanceof Long x && b instanceof BigDecimal y) {
      return y.compareTo(BigDecimal.valueOf(x)) == 0;
    }
    return Objects.equals(a, b);
  }

  private static Object toObject(Value value) {
    return switch (value.getKindCase()) {
      case LONG_VALUE -> value.getLongValue();
      case STRING_VALUE -> value.getStringValue();
      case DECIMAL_VALUE -> new BigDecimal(value.getDecimalValue());
      case DOUBLE_VALUE -> value.getDoubleValue();
      case NULL_VALUE, KIND_NOT_SET -> null;
      case TRUTH_VALUE, DATE_TIME_VALUE -> throw new AssertionError("a column's value is never " + value);
    };
  }

  // ---- random queries ----

  private static Query randomQuery(Random random) {
    Query.Builder query = Query.newBuilder().setTrackTotal(true).setLimit(random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(60));
    if (random.nextInt(4) == 0) {
      // A few rows lead the conjunction: a condition read from the index is then checked on their doc values instead.
      long rowId = random.nextInt(ROWS);
      Filter fewRows = Filter.newBuilder().setRange(Range.newBuilder().setField("row_id").setAccess(AccessPath.INDEX)
          .setLower(Value.newBuilder().setLongValue(rowId)).setUpper(Value.newBuilder().setLongValue(rowId + 8))
          .setLowerInclusive(true).setUpperInclusive(true)).build();
      query.setFilter(Filter.newBuilder().setBool(Bool.newBuilder().addMust(fewRows)
          .addMust(randomFilter(random, 2))));
    } else if (random.nextInt(8) != 0) {
      query.setFilter(randomFilter(random, 2));
    }
    int sorts = random.nextInt(3);
    for (int i = 0; i < sorts; i++) {
      query.addSort(SortField.newBuilder().setField(pick(random, SORTABLE)).setDescending(random.nextBoolean()));
    }
    query.setIncludeRows(random.nextInt(4) == 0);
    if (random.nextInt(3) == 0) {
      int groups = random.nextInt(3);
      for (int i = 0; i < groups; i++) {
        query.addGroupBy(pick(random, List.of("status", "seller_nick", "tenant_id", "group_id")));
      }
      int aggregations = 1 + random.nextInt(3);
      for (int i = 0; i < aggregations; i++) {
        query.addAggregations(pick(random, List.of(
            aggregation(Aggregation.Function.COUNT, ""),
            aggregation(Aggregation.Function.COUNT, "price"),
            aggregation(Aggregation.Function.SUM, "price"),
            aggregation(Aggregation.Function.SUM, "quantity"),
            aggregation(Aggregation.Function.AVG, "quantity"),
            aggregation(Aggregation.Function.MIN, "seller_nick"),
            aggregation(Aggregation.Function.MAX, "created_time"),
            aggregation(Aggregation.Function.MIN, "price"),
            aggregation(Aggregation.Function.DISTINCT_VALUES, "buyer_id"))));
      }
    }
    return query.build();
  }

  private static Aggregation aggregation(Aggregation.Function function, String field) {
    return Aggregation.newBuilder().setFunction(function).setField(field).build();
  }

  private static Filter randomFilter(Random random, int depth) {
    if (depth > 0 && random.nextInt(3) == 0) {
      Bool.Builder bool = Bool.newBuilder();
      int must = random.nextInt(3);
      for (int i = 0; i < must; i++) {
        bool.addMust(randomFilter(random, depth - 1));
      }
      int should = random.nextInt(3);
      for (int i = 0; i < should; i++) {
        bool.addShould(randomFilter(random, depth - 1));
      }
      if (random.nextBoolean()) {
        bool.addMustNot(randomFilter(random, depth - 1));
      }
      return Filter.newBuilder().setBool(bool).build();
    }
    AccessPath access = random.nextBoolean() ? AccessPath.INDEX : AccessPath.DOC_VALUES;
    switch (random.nextInt(9)) {
      case 0: {
        String field = pick(random, NUMERIC_TERM_FIELDS);
        Value value = random.nextInt(10) == 0
            ? Value.newBuilder().setDecimalValue(random.nextInt(5) + (random.nextBoolean() ? ".0" : ".5")).build()
            : Value.newBuilder().setLongValue(numericDomainValue(random, field)).build();
        return Filter.newBuilder().setTerm(Term.newBuilder().setField(field).setValue(value).setAccess(access)).build();
      }
      case 1:
        return term(pick(random, KEYWORDS), Value.newBuilder().setStringValue(nick(random)), access);
      case 2: {
        Terms.Builder terms = Terms.newBuilder().setAccess(access);
        boolean keyword = random.nextBoolean();
        String field = keyword ? pick(random, KEYWORDS) : pick(random, NUMERIC_TERM_FIELDS);
        terms.setField(field);
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
          terms.addValues(keyword ? Value.newBuilder().setStringValue(nick(random)).build()
              : Value.newBuilder().setLongValue(numericDomainValue(random, field)).build());
        }
        return Filter.newBuilder().setTerms(terms).build();
      }
      case 3: {
        String field = pick(random, RANGE_FIELDS);
        Range.Builder range = Range.newBuilder().setField(field).setAccess(access)
            .setLowerInclusive(random.nextBoolean()).setUpperInclusive(random.nextBoolean());
        long a = numericDomainValue(random, field);
        long b = a + numericDomainValue(random, field) / 2;
        if (random.nextInt(4) != 0) {
          range.setLower(bound(random, field, a));
        }
        if (random.nextInt(4) != 0) {
          range.setUpper(bound(random, field, b));
        }
        return Filter.newBuilder().setRange(range).build();
      }
      case 4: {
        String low = nick(random);
        String high = nick(random);
        Range.Builder range = Range.newBuilder().setField(pick(random, KEYWORDS)).setAccess(access)
            .setLowerInclusive(random.nextBoolean()).setUpperInclusive(random.nextBoolean());
        if (random.nextInt(4) != 0) {
          range.setLower(Value.newBuilder().setStringValue(low.compareTo(high) <= 0 ? low : high));
        }
        if (random.nextInt(4) != 0) {
          range.setUpper(Value.newBuilder().setStringValue(low.compareTo(high) <= 0 ? high : low));
        }
        return Filter.newBuilder().setRange(range).build();
      }
      case 5:
        return Filter.newBuilder().setExists(Exists.newBuilder().setField(pick(random, NULLABLE))).build();
      case 6: {
        String text = pick(random, TestRows.WORDS) + (random.nextBoolean() ? " " + pick(random, TestRows.WORDS) : "");
        if (random.nextInt(5) == 0) {
          text = "nothing-like-it";
        }
        text = random.nextBoolean() ? text.toUpperCase(Locale.ROOT) : text;
        return Filter.newBuilder().setMatch(Match.newBuilder().setField("title").setText(text)).build();
      }
      case 7:
        return Filter.newBuilder().setLike(Like.newBuilder().setField(pick(random, KEYWORDS))
            .setPattern(pick(random, List.of("%a%", "b%", "_o_", "%\\%", "b\\_b", "%", "c%T", "é%")))).build();
      default: {
        long tenant = 1 + random.nextInt(6);
        long from = random.nextInt(10_000);
        long to = from + random.nextInt(5_000);
        return Filter.newBuilder().setCompositeRange(CompositeRange.newBuilder().setIndex("tenant_created")
            .addLower(Value.newBuilder().setLongValue(tenant)).addLower(Value.newBuilder().setLongValue(from))
            .addUpper(Value.newBuilder().setLongValue(tenant + random.nextInt(2)))
            .addUpper(Value.newBuilder().setLongValue(to))).build();
      }
    }
  }

  private static Value bound(Random random, String field, long value) {
    if (field.equals("price")) {
      // Prices in cents, bounds with up to three decimals: exercises rounding of bounds between storable values.
      return Value.newBuilder().setDecimalValue(new BigDecimal(BigInteger.valueOf(value * 10 + random.nextInt(10)), 3)
          .toPlainString()).build();
    }
    return Value.newBuilder().setLongValue(value).build();
  }

  private static long numericDomainValue(Random random, String field) {
    return switch (field) {
      case "tenant_id" -> 1 + random.nextInt(7);
      case "status" -> random.nextInt(6);
      case "buyer_id" -> random.nextInt(55);
      case "quantity" -> random.nextInt(12);
      case "group_id" -> random.nextInt(22);
      case "created_time" -> random.nextInt(10_000);
      case "modified_time" -> 1_000 + random.nextInt(19_000);
      case "price" -> random.nextInt(100_000);
      default -> throw new IllegalArgumentException(field);
    };
  }

  private static String nick(Random random) {
    return random.nextInt(8) == 0 ? "zed" : pick(random, TestRows.NICKS);
  }

  private static Filter term(String field, Value.Builder value) {
    return Filter.newBuilder().setTerm(Term.newBuilder().setField(field).setValue(value)).build();
  }

  private static Filter term(String field, Value.Builder value, AccessPath access) {
    return Filter.newBuilder().setTerm(Term.newBuilder().setField(field).setValue(value).setAccess(access)).build();
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
