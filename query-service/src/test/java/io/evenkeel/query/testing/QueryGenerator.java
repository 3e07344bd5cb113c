package io.evenkeel.query.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random SELECTs over {@code transaction_logs} in the service's dialect, each with the same query for the reference
 * database: {@code attr('k')} reads a precomputed column {@code attr__k} there, and {@code MATCH(title)
 * AGAINST('w1 w2')} (any word in common under a lower-casing word tokenizer) is a word-boundary REGEXP per word,
 * because MariaDB's own full-text search has other rules (stop words, minimum word length, relevance).
 */
public final class QueryGenerator {
  /** One generated query. {@code ordered}: its ORDER BY is total, so the row order must match too. */
  public record Generated(String sql, List<Object> params, String reference, boolean ordered) {}

  /** A fragment in both dialects. */
  private record Sql(String service, String reference) {
    static Sql of(String text) {
      return new Sql(text, text);
    }

    Sql wrap(String prefix, String suffix) {
      return new Sql(prefix + service + suffix, prefix + reference + suffix);
    }

    static Sql join(String separator, List<Sql> parts) {
      List<String> service = new ArrayList<>();
      List<String> reference = new ArrayList<>();
      parts.forEach(p -> {
        service.add(p.service);
        reference.add(p.reference);
      });
      return new Sql(String.join(separator, service), String.join(separator, reference));
    }
  }

  static final List<String> SORTABLE = List.of("tenant_id", "created_time", "modified_time", "status", "buyer_id",
      "seller_nick", "buyer_nick", "price", "quantity", "group_id");
  static final List<String> COLUMNS = List.of("tenant_id", "row_id", "created_time", "modified_time", "status",
      "buyer_id", "seller_nick", "buyer_nick", "title", "price", "quantity", "group_id", "attributes");
  private static final List<String> LIKE_PATTERNS = List.of("b%", "%a%", "_a%", "b\\_b", "100\\%", "x%", "A%",
      "%n ", "%");
  private static final List<String> EXPRESSIONS = List.of("price * quantity", "IFNULL(seller_nick, 'none')",
      "DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m-%d %H:%i')", "attr('color')", "quantity / 4",
      "price / 3", "-status", "modified_time - created_time", "COALESCE(buyer_nick, seller_nick, '?')",
      "IFNULL(price, 0) + 1.5", "attr('size')", "DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%a %b %e %Y')",
      "CASE WHEN quantity > 5 THEN 'big' WHEN quantity > 2 THEN 'mid' ELSE 'small' END",
      "IF(status = 1, 'one', 'other')", "NULLIF(status, 0)", "quantity % 3", "CAST(price AS SIGNED)", "ROUND(price, 1)",
      "UPPER(seller_nick)", "CHAR_LENGTH(title)", "CONCAT(seller_nick, '/', status)", "SUBSTRING(title, 2, 3)",
      "LPAD(buyer_nick, 6, '*')", "GREATEST(IFNULL(quantity, 0), 2)", "DATE(FROM_UNIXTIME(created_time / 1000))",
      "HOUR(FROM_UNIXTIME(created_time / 1000))", "DAYOFWEEK(FROM_UNIXTIME(created_time / 1000))",
      "DATEDIFF(FROM_UNIXTIME(modified_time / 1000), FROM_UNIXTIME(created_time / 1000))", "quantity DIV 2",
      "price DIV 3", "POW(quantity, 2)", "SQRT(price)", "FROM_UNIXTIME(created_time / 1000) + INTERVAL 1 DAY",
      "CAST(DATE(FROM_UNIXTIME(created_time / 1000)) AS DATETIME)", "CONVERT(price, SIGNED)",
      "DAY(FROM_UNIXTIME(created_time / 1000))");
  private static final List<String> AGGREGATES = List.of("COUNT(*)", "COUNT(title)", "COUNT(DISTINCT buyer_id)",
      "COUNT(DISTINCT seller_nick)", "SUM(price)", "SUM(quantity)", "AVG(price)", "AVG(quantity)", "MIN(price)",
      "MAX(created_time)", "MIN(seller_nick)", "MAX(buyer_nick)", "SUM(price * quantity)", "AVG(IFNULL(quantity, 0))",
      "COUNT(attr('color'))", "MAX(status)", "SUM(CASE WHEN status = 1 THEN 1 ELSE 0 END)",
      "MAX(CHAR_LENGTH(title))");
  private static final List<String> GROUP_KEYS = List.of("status", "seller_nick", "buyer_nick", "group_id",
      "quantity", "attr('color')", "DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m-%d')", "status % 2",
      "CASE WHEN price > 50 THEN 'high' ELSE 'low' END", "MONTH(FROM_UNIXTIME(created_time / 1000))",
      "DATE(FROM_UNIXTIME(created_time / 1000))");

  private final Random random;
  private final List<Long> tenants;
  private List<Object> params;

  public QueryGenerator(Random random, List<Long> tenants) {
    this.random = random;
    this.tenants = tenants;
  }

  public Generated next() {
    params = new ArrayList<>();
    int kind = random.nextInt(11);
    if (kind < 5) {
      return random.nextInt(5) == 0 ? tenantPage() : rows();
    }
    if (kind < 7) {
      return aggregate();
    }
    if (kind < 9) {
      return grouped();
    }
    return kind == 9 ? distinct() : union();
  }

  /**
   * Two or three SELECTs of the same shape combined by UNION or UNION ALL, some in parentheses with their own ORDER
   * BY and LIMIT, and an ORDER BY every column (so the order is total) and a LIMIT over the whole, or none.
   */
  private Generated union() {
    int shape = random.nextInt(4);
    int parts = 2 + random.nextInt(2);
    List<Sql> selects = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      Sql select = switch (shape) {
        case 0 -> Sql.of("SELECT tenant_id, row_id, status FROM transaction_logs");
        case 1 -> expression("SELECT " + pick(List.of("status", "quantity", "seller_nick", "attr('color')"))
            + ", COUNT(*) FROM transaction_logs");
        case 2 -> expression("SELECT " + pick(List.of("seller_nick", "buyer_nick", "status", "price", "title",
            "UPPER(seller_nick)", "quantity % 3")) + " FROM transaction_logs");
        default -> Sql.of("SELECT row_id, price FROM transaction_logs");
      };
      Sql where = predicate(1).wrap(" WHERE ", "");
      Sql tail = Sql.of(shape == 1 ? " GROUP BY 1" : "");
      Sql part = Sql.join("", List.of(select, where, tail));
      if (shape == 3 && random.nextBoolean()) {
        part = Sql.join("", List.of(part, Sql.of(" ORDER BY price DESC, tenant_id, row_id LIMIT " + (1 + random.nextInt(8)))))
            .wrap("(", ")");
      }
      selects.add(part);
    }
    Sql union = selects.get(0);
    for (int i = 1; i < parts; i++) {
      union = Sql.join(random.nextBoolean() ? " UNION ALL " : " UNION ", List.of(union, selects.get(i)));
    }
    boolean ordered = random.nextInt(3) != 0;
    String tail = "";
    if (ordered) {
      int columns = shape == 0 ? 3 : shape == 2 ? 1 : 2;
      List<String> keys = new ArrayList<>();
      for (int i = 1; i <= columns; i++) {
        keys.add(i + (random.nextBoolean() ? " DESC" : ""));
      }
      tail = " ORDER BY " + String.join(", ", keys) + (random.nextBoolean() ? " LIMIT " + (1 + random.nextInt(20))
          + (random.nextBoolean() ? " OFFSET " + random.nextInt(10) : "") : "");
    }
    return generated(union, Sql.of(""), Sql.of(tail), ordered);
  }

  private Generated rows() {
    Sql select;
    int shape = random.nextInt(4);
    if (shape == 0) {
      select = new Sql("*", String.join(", ", COLUMNS));
    } else {
      List<Sql> items = new ArrayList<>();
      int n = 1 + random.nextInt(4);
      for (int i = 0; i < n; i++) {
        items.add(shape == 1 || random.nextBoolean() ? Sql.of(pick(COLUMNS)) : expression(pick(EXPRESSIONS)));
      }
      select = Sql.join(", ", items);
    }
    Sql where = maybeWhere();
    boolean ordered = random.nextInt(4) != 0;
    String order = "";
    String page = "";
    if (ordered) {
      List<String> keys = new ArrayList<>();
      int n = random.nextInt(3);
      for (int i = 0; i < n; i++) {
        String key = random.nextInt(5) == 0 ? "IFNULL(quantity, 0)" : pick(SORTABLE);
        keys.add(key + (random.nextBoolean() ? " DESC" : ""));
      }
      keys.add("tenant_id");
      keys.add("row_id" + (random.nextInt(3) == 0 ? " DESC" : ""));
      order = " ORDER BY " + String.join(", ", keys);
      if (random.nextInt(3) != 0) {
        page = " LIMIT " + (1 + random.nextInt(30)) + (random.nextBoolean() ? " OFFSET " + random.nextInt(20) : "");
      }
    }
    return generated(select.wrap("SELECT ", " FROM transaction_logs"), where, Sql.of(order + page), ordered);
  }

  /** A tenant's page by time, which the composite index (tenant_id, created_time) gives in order. */
  private Generated tenantPage() {
    long from = time();
    List<Sql> conjuncts = new ArrayList<>(List.of(tenantEquals(),
        Sql.of("created_time BETWEEN " + from + " AND " + (from + random.nextInt(30) * TestRows.DAY))));
    if (random.nextBoolean()) {
      conjuncts.add(leaf());
    }
    String order = " ORDER BY created_time" + (random.nextBoolean() ? " DESC" : "") + ", tenant_id, row_id";
    String page = " LIMIT " + (1 + random.nextInt(10)) + (random.nextBoolean() ? " OFFSET " + random.nextInt(5) : "");
    return generated(Sql.of("SELECT row_id, created_time, status FROM transaction_logs"),
        Sql.join(" AND ", conjuncts).wrap(" WHERE ", ""), Sql.of(order + page), true);
  }

  private Generated aggregate() {
    List<Sql> items = new ArrayList<>();
    int n = 1 + random.nextInt(4);
    for (int i = 0; i < n; i++) {
      items.add(expression(pick(AGGREGATES)));
    }
    return generated(Sql.join(", ", items).wrap("SELECT ", " FROM transaction_logs"), maybeWhere(), Sql.of(""),
        true);
  }

  private Generated grouped() {
    List<Sql> keys = new ArrayList<>();
    int n = 1 + random.nextInt(2);
    while (keys.size() < n) {
      Sql key = expression(pick(GROUP_KEYS));
      if (!keys.contains(key)) {
        keys.add(key);
      }
    }
    List<Sql> items = new ArrayList<>(keys);
    int aggregates = 1 + random.nextInt(3);
    for (int i = 0; i < aggregates; i++) {
      items.add(expression(pick(AGGREGATES)));
    }
    Sql tail = Sql.join(", ", keys).wrap(" GROUP BY ", "");
    if (random.nextInt(3) == 0) {
      tail = Sql.join("", List.of(tail, Sql.of(random.nextBoolean() ? " HAVING COUNT(*) > 2"
          : " HAVING SUM(price) > 1000 OR MIN(quantity) = 1")));
    }
    boolean ordered = random.nextBoolean();
    if (ordered) {
      List<Sql> order = new ArrayList<>();
      if (random.nextBoolean()) {
        order.add(Sql.of("COUNT(*) DESC"));
      }
      for (Sql key : keys) {
        order.add(random.nextBoolean() ? key.wrap("", " DESC") : key);
      }
      tail = Sql.join("", List.of(tail, Sql.join(", ", order).wrap(" ORDER BY ", "")));
      if (random.nextBoolean()) {
        tail = Sql.join("", List.of(tail, Sql.of(" LIMIT " + (1 + random.nextInt(10)))));
      }
    }
    return generated(Sql.join(", ", items).wrap("SELECT ", " FROM transaction_logs"), maybeWhere(), tail, ordered);
  }

  private Generated distinct() {
    String column = pick(List.of("status", "seller_nick", "buyer_nick", "group_id", "quantity"));
    boolean ordered = random.nextBoolean();
    return generated(Sql.of("SELECT DISTINCT " + column + " FROM transaction_logs"), maybeWhere(),
        Sql.of(ordered ? " ORDER BY " + column + (random.nextBoolean() ? " DESC" : "") : ""), ordered);
  }

  private Generated generated(Sql head, Sql where, Sql tail, boolean ordered) {
    Sql sql = Sql.join("", List.of(head, where, tail));
    return new Generated(sql.service, List.copyOf(params), sql.reference, ordered);
  }

  private Sql maybeWhere() {
    return random.nextInt(8) == 0 ? Sql.of("") : predicate(0).wrap(" WHERE ", "");
  }

  private Sql predicate(int depth) {
    int choice = random.nextInt(depth >= 2 ? 1 : 10);
    if (choice == 0 || choice > 6) {
      return leaf();
    }
    if (choice <= 2) {
      return predicate(depth + 1).wrap("NOT (", ")");
    }
    List<Sql> children = new ArrayList<>();
    int n = 2 + random.nextInt(2);
    for (int i = 0; i < n; i++) {
      children.add(predicate(depth + 1));
    }
    return Sql.join(choice <= 4 ? " AND " : " OR ", children).wrap("(", ")");
  }

  private Sql leaf() {
    return switch (random.nextInt(26)) {
      case 0, 1 -> tenantEquals();
      case 2 -> Sql.of("tenant_id IN (" + pick(tenants) + ", " + pick(tenants) + ")");
      case 3 -> Sql.of("created_time " + pick(List.of(">=", "<", ">", "<=")) + " " + time());
      case 4 -> {
        long a = time();
        yield Sql.of("created_time BETWEEN " + a + " AND " + (a + random.nextInt(10) * TestRows.DAY));
      }
      case 5 -> Sql.of("status " + pick(List.of("=", "!=", "<", "<=", ">", ">=")) + " " + random.nextInt(5));
      case 6 -> Sql.of("status " + pick(List.of("IN (1, 3)", "NOT IN (0, 2)", "IS NULL", "IS NOT NULL",
          "BETWEEN 1 AND 3", "NOT BETWEEN 1 AND 2", "IN (1, NULL)", "NOT IN (1, NULL)", "= NULL")));
      case 7 -> Sql.of("buyer_id " + pick(List.of("=", "<", ">=", "!=")) + " " + random.nextInt(50));
      case 8 -> Sql.of(pick(List.of("seller_nick", "buyer_nick")) + " " + pick(List.of("=", "!=", "<", ">="))
          + " " + quote(pick(TestRows.NICKS)));
      case 9 -> Sql.of(pick(List.of("seller_nick", "buyer_nick")) + pick(List.of(" LIKE ", " NOT LIKE "))
          + quote(pick(LIKE_PATTERNS)));
      case 10 -> Sql.of(pick(List.of("seller_nick", "buyer_nick")) + pick(List.of(" IN ", " NOT IN ")) + "("
          + quote(pick(TestRows.NICKS)) + ", " + quote(pick(TestRows.NICKS)) + ")");
      case 11 -> Sql.of(pick(List.of("seller_nick IS NULL", "buyer_nick IS NOT NULL", "title IS NULL",
          "price IS NULL", "quantity IS NOT NULL")));
      case 12 -> Sql.of("price " + pick(List.of(">", "<=", ">=", "<")) + " " + price());
      case 13 -> Sql.of("price BETWEEN " + price() + " AND " + price());
      case 14 -> Sql.of("quantity " + pick(List.of("=", ">=", "<", "!=")) + " " + (1 + random.nextInt(10)));
      case 15 -> Sql.of("group_id " + pick(List.of("IN (1, 2, 3)", "= 4", "!= 5", "< 10")));
      case 16, 17 -> match();
      case 18 -> attr("color", pick(TestRows.COLORS));
      case 19 -> attr("size", pick(TestRows.SIZES));
      case 20 -> expression(pick(List.of("attr('brand') IS NULL", "attr('color') IN ('red', 'blue')",
          "attr('size') != 'M'", "attr('color') IS NOT NULL")));
      case 21 -> Sql.of(pick(List.of("price * quantity > 2000", "IFNULL(status, 9) = 9", "quantity + 1 > status",
          "title = 'red wool'", "created_time + 3600000 > modified_time", "quantity % 3 = 1",
          "CASE WHEN status IS NULL THEN 0 ELSE status END >= 2", "UPPER(seller_nick) = 'ANN'",
          "LOCATE('o', title) > 2", "TRIM(title) != title", "ABS(price - 500) < 100", "CAST(price AS SIGNED) > 500",
          "FROM_UNIXTIME(created_time / 1000) >= '2023-11-20'",
          "DATE(FROM_UNIXTIME(created_time / 1000)) = '2023-11-18'",
          "DATE_ADD(FROM_UNIXTIME(created_time / 1000), INTERVAL 1 WEEK) < '2023-12-01'", "quantity DIV 3 = 1",
          "POW(quantity, 2) > 20", "FROM_UNIXTIME(created_time / 1000) - INTERVAL 2 HOUR < '2023-11-18'")));
      case 22 -> Sql.of("(" + pick(List.of("status = 1 OR status = 2", "quantity = 3 OR quantity = 4 OR quantity IN (5)",
          "seller_nick = 'ann' OR seller_nick = 'Cat'")) + ")");
      case 24, 25 -> subquery();
      default -> Sql.of("row_id " + pick(List.of("<", ">=")) + " " + random.nextInt(3_000));
    };
  }

  /** An uncorrelated subquery in IN, NOT IN, EXISTS or as a value, over a simple filter (NULLs among its values). */
  private Sql subquery() {
    Sql where = switch (random.nextInt(4)) {
      case 0 -> tenantEquals();
      case 1 -> Sql.of("status " + pick(List.of("= 1", "IS NULL", "> 2")));
      case 2 -> Sql.of(pick(List.of("seller_nick", "buyer_nick")) + " = " + quote(pick(TestRows.NICKS)));
      default -> Sql.of("price > " + price());
    };
    Sql inner = where.wrap(" FROM transaction_logs WHERE ", ")");
    return switch (random.nextInt(6)) {
      case 0 -> inner.wrap("buyer_id IN (SELECT buyer_id", "");
      case 1 -> inner.wrap(pick(List.of("status", "quantity")) + pick(List.of(" IN", " NOT IN")) + " (SELECT status",
          "");
      case 2 -> inner.wrap("seller_nick NOT IN (SELECT buyer_nick", "");
      case 3 -> inner.wrap(pick(List.of("EXISTS", "NOT EXISTS")) + " (SELECT row_id", "");
      case 4 -> inner.wrap("price " + pick(List.of(">", "<=")) + " (SELECT AVG(price)", "");
      default -> inner.wrap("created_time > (SELECT MIN(created_time)", "");
    };
  }

  private Sql tenantEquals() {
    long tenant = pick(tenants);
    if (random.nextInt(4) == 0) {
      params.add(tenant);
      return new Sql("tenant_id = ?", "tenant_id = " + tenant);
    }
    return Sql.of("tenant_id = " + tenant);
  }

  private Sql match() {
    List<String> words = new ArrayList<>();
    int n = 1 + random.nextInt(2);
    for (int i = 0; i < n; i++) {
      words.add(pick(TestRows.WORDS));
    }
    List<String> regexps = new ArrayList<>();
    words.forEach(w -> regexps.add("title REGEXP '\\\\b" + w + "\\\\b'"));
    return new Sql("MATCH(title) AGAINST('" + String.join(" ", words) + "')", "(" + String.join(" OR ", regexps) + ")");
  }

  private Sql attr(String key, String value) {
    String op = pick(List.of("=", "!=", "<"));
    return expression("attr('" + key + "') " + op + " '" + value + "'");
  }

  /** The service text and the reference text with attr('k') as the column attr__k. */
  private static Sql expression(String text) {
    return new Sql(text, text.replaceAll("attr\\('(\\w+)'\\)", "attr__$1"));
  }

  private long time() {
    return TestRows.BASE_TIME + (long) (random.nextDouble() * 30 * TestRows.DAY);
  }

  private String price() {
    return java.math.BigDecimal.valueOf(random.nextInt(100_000), random.nextInt(4)).toPlainString();
  }

  private static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
