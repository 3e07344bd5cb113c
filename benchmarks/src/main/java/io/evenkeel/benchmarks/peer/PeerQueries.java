package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Tenant-scoped queries, each written twice with the same meaning: SQL with parameters for Evenkeel and a bool filter
 * for OpenSearch. A query is anchored on a real row of its tenant (so it matches at least that row): the tenant, a
 * created_time window of 1, 6, 24 or 72 hours around the row, and two to four more conditions drawn from what the row
 * holds; the 100 newest rows by created_time.
 */
public final class PeerQueries {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long HOUR = 3_600_000;
  private static final int PAGE = 100;

  /** One query in both languages; {@code tenant} null for one over every tenant (not routed). */
  record PeerQuery(Long tenant, String sql, List<Object> params, String openSearch) {}

  private static final long DAY = 24 * HOUR;

  /**
   * {@code count} cross-tenant analytics in turn, each over a window of 1, 3 or 7 days that overlaps the rows' time
   * span by a random share: the top 10 tenants by rows, rows by status and day, and the 20 tenants with the largest sum of prices, each
   * as SQL and as the equivalent {@code terms} / {@code histogram} aggregation. Days are UTC days of created_time
   * (SQL's {@code DATE(FROM_UNIXTIME(created_time / 1000))}, a histogram of 86,400,000 ms).
   */
  static List<PeerQuery> analytics(List<TransactionLogChange> rows, int count, long seed) {
    long first = rows.stream().mapToLong(TransactionLogChange::getCreatedTime).min().orElse(0);
    long last = rows.stream().mapToLong(TransactionLogChange::getCreatedTime).max().orElse(0);
    Random random = new Random(seed);
    List<PeerQuery> queries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long window = List.of(1L, 3L, 7L).get(random.nextInt(3)) * DAY;
      // Anywhere from just touching the rows' first millisecond to just past their last: each window holds its own
      // share of the rows, also when the rows span less than a window, so no two queries ask the same.
      long from = first - window + 1 + (long) (random.nextDouble() * (last - first + window));
      long to = from + window;
      ObjectNode body = JSON.createObjectNode();
      body.put("size", 0);
      body.putObject("query").set("range", range("created_time", "gte", from, "lt", to).get("range"));
      ObjectNode aggs = body.putObject("aggs");
      String where = " FROM transaction_logs WHERE created_time >= ? AND created_time < ?";
      switch (i % 3) {
        case 0 -> {
          ObjectNode terms = aggs.putObject("tenants").putObject("terms").put("field", "tenant_id").put("size", 10);
          terms.putArray("order").add(JSON.createObjectNode().put("_count", "desc"))
              .add(JSON.createObjectNode().put("_key", "asc"));
          queries.add(new PeerQuery(null, "SELECT tenant_id, COUNT(*) AS n" + where
              + " GROUP BY tenant_id ORDER BY n DESC, tenant_id LIMIT 10", List.of(from, to), body.toString()));
        }
        case 1 -> {
          ObjectNode status = aggs.putObject("status");
          status.putObject("terms").put("field", "status").put("size", 100);
          status.putObject("aggs").putObject("days").putObject("histogram").put("field", "created_time")
              .put("interval", DAY).put("min_doc_count", 1);
          queries.add(new PeerQuery(null, "SELECT status, DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*)"
              + where + " GROUP BY status, day", List.of(from, to), body.toString()));
        }
        default -> {
          ObjectNode tenants = aggs.putObject("tenants");
          ObjectNode terms = tenants.putObject("terms").put("field", "tenant_id").put("size", 20);
          terms.putArray("order").add(JSON.createObjectNode().put("revenue", "desc"))
              .add(JSON.createObjectNode().put("_key", "asc"));
          tenants.putObject("aggs").putObject("revenue").putObject("sum").put("field", "price");
          queries.add(new PeerQuery(null, "SELECT tenant_id, SUM(price) AS revenue" + where
              + " GROUP BY tenant_id ORDER BY revenue DESC, tenant_id LIMIT 20", List.of(from, to), body.toString()));
        }
      }
    }
    return queries;
  }

  private PeerQueries() {}

  /** The {@code hot} tenants with the most rows and the {@code small} ones with the fewest (ties by tenant id). */
  public static List<List<Long>> tenants(List<TransactionLogChange> rows, int hot, int small) {
    Map<Long, Integer> counts = new HashMap<>();
    rows.forEach(row -> counts.merge(row.getTenantId(), 1, Integer::sum));
    List<Long> byRows = new ArrayList<>(counts.keySet());
    byRows.sort(Comparator.comparing((Long t) -> -counts.get(t)).thenComparing(t -> t));
    List<Long> fewest = new ArrayList<>(byRows);
    fewest.sort(Comparator.comparing((Long t) -> counts.get(t)).thenComparing(t -> t));
    return List.of(byRows.subList(0, Math.min(hot, byRows.size())), fewest.subList(0, Math.min(small, fewest.size())));
  }

  /** {@code count} queries over {@code tenants} in turn. */
  static List<PeerQuery> generate(List<TransactionLogChange> rows, List<Long> tenants, int count, long seed) {
    Map<Long, List<TransactionLogChange>> byTenant = new HashMap<>();
    rows.forEach(row -> byTenant.computeIfAbsent(row.getTenantId(), t -> new ArrayList<>()).add(row));
    Random random = new Random(seed);
    List<PeerQuery> queries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      List<TransactionLogChange> ofTenant = byTenant.get(tenants.get(i % tenants.size()));
      queries.add(anchoredOn(ofTenant.get(random.nextInt(ofTenant.size())), random));
    }
    return queries;
  }

  private static PeerQuery anchoredOn(TransactionLogChange row, Random random) {
    Query query = new Query();
    long window = List.of(1L, 6L, 24L, 72L).get(random.nextInt(4)) * HOUR;
    long from = row.getCreatedTime() - (long) (random.nextDouble() * window);
    query.condition("tenant_id = ?", List.of(row.getTenantId()), term("tenant_id", row.getTenantId()));
    query.condition("created_time >= ? AND created_time < ?", List.of(from, from + window),
        range("created_time", "gte", from, "lt", from + window));
    List<Condition> pool = new ArrayList<>();
    int otherStatus = List.of(0, 1, 2, 3, 4, 5, 9).get(random.nextInt(7));
    pool.add(new Condition("status IN (?, ?)", List.of(row.getStatus(), otherStatus),
        terms("status", row.getStatus(), otherStatus)));
    pool.add(new Condition("seller_nick = ?", List.of(row.getSellerNick()), term("seller_nick", row.getSellerNick())));
    int quantity = row.getQuantity() + random.nextInt(4);
    pool.add(new Condition("quantity <= ?", List.of(quantity), range("quantity", "lte", quantity, null, null)));
    pool.add(new Condition("modified_time >= ?", List.of(row.getCreatedTime()),
        range("modified_time", "gte", row.getCreatedTime(), null, null)));
    BigDecimal low = row.getPrice().multiply(new BigDecimal("0.5")).setScale(2, RoundingMode.HALF_UP);
    BigDecimal high = row.getPrice().multiply(BigDecimal.valueOf(2)).add(BigDecimal.ONE);
    pool.add(new Condition("price BETWEEN ? AND ?", List.of(low, high),
        range("price", "gte", low, "lte", high)));
    pool.add(new Condition("group_id IS NOT NULL", List.of(), exists("group_id")));
    String[] words = row.getTitle().split(" ");
    String word = words[random.nextInt(words.length)];
    pool.add(new Condition("MATCH(title) AGAINST (?)", List.of(word), match("title", word)));
    if (random.nextDouble() < 0.3) {
      pool.add(new Condition("buyer_nick = ?", List.of(row.getBuyerNick()), term("buyer_nick", row.getBuyerNick())));
    }
    Collections.shuffle(pool, random);
    pool.subList(0, 2 + random.nextInt(Math.min(4, pool.size()) - 1)).forEach(query::add);
    return query.build(row.getTenantId());
  }

  private record Condition(String sql, List<Object> params, ObjectNode filter) {}

  /** The conditions so far, ANDed. */
  private static final class Query {
    private final List<String> sql = new ArrayList<>();
    private final List<Object> params = new ArrayList<>();
    private final ArrayNode filters = JSON.createArrayNode();

    void condition(String condition, List<?> values, ObjectNode filter) {
      add(new Condition(condition, List.copyOf(values), filter));
    }

    void add(Condition condition) {
      sql.add(condition.sql());
      params.addAll(condition.params());
      filters.add(condition.filter());
    }

    PeerQuery build(long tenant) {
      ObjectNode body = JSON.createObjectNode();
      body.put("size", PAGE);
      body.putArray("sort").addObject().putObject("created_time").put("order", "desc");
      body.putObject("query").putObject("bool").set("filter", filters);
      return new PeerQuery(tenant, "SELECT * FROM transaction_logs WHERE " + String.join(" AND ", sql)
          + " ORDER BY created_time DESC LIMIT " + PAGE, List.copyOf(params), body.toString());
    }
  }

  private static ObjectNode term(String field, Object value) {
    ObjectNode node = JSON.createObjectNode();
    node.putObject("term").putPOJO(field, value);
    return node;
  }

  private static ObjectNode terms(String field, Object... values) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode list = node.putObject("terms").putArray(field);
    for (Object value : values) {
      list.addPOJO(value);
    }
    return node;
  }

  private static ObjectNode range(String field, String op, Object value, String op2, Object value2) {
    ObjectNode node = JSON.createObjectNode();
    ObjectNode bounds = node.putObject("range").putObject(field);
    bounds.putPOJO(op, value);
    if (op2 != null) {
      bounds.putPOJO(op2, value2);
    }
    return node;
  }

  private static ObjectNode exists(String field) {
    ObjectNode node = JSON.createObjectNode();
    node.putObject("exists").put("field", field);
    return node;
  }

  private static ObjectNode match(String field, String word) {
    ObjectNode node = JSON.createObjectNode();
    node.putObject("match").put(field, word);
    return node;
  }
}
