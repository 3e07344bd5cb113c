package io.evenkeel.query.testing;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.util.List;
import java.util.Random;

/**
 * Rows with values from small domains, so that random predicates match interesting subsets, with NULLs in every
 * nullable column and strings that tell a binary collation from others: upper before lower case, code point order
 * beyond the BMP ("x😀" after "x～", though UTF-16 orders it first), LIKE metacharacters in data.
 */
public final class TestRows {
  /** 2023-11-14T22:13:20Z. */
  public static final long BASE_TIME = 1_700_000_000_000L;
  public static final long DAY = 86_400_000L;
  public static final List<String> NICKS = List.of("ann", "bob", "Cat", "dan", "éva", "b_b", "100%", "x😀", "x～",
      "Ann", "ann ");
  public static final List<String> WORDS = List.of("red", "blue", "wool", "cotton", "scarf", "shirt", "winter",
      "gift");
  public static final List<String> COLORS = List.of("red", "blue", "green");
  public static final List<String> SIZES = List.of("S", "M", "L");

  private TestRows() {}

  /** A random full row of {@code tenant} created within {@code days} days of {@link #BASE_TIME}. */
  public static TransactionLogChange random(Random random, long tenant, long row, int days) {
    long created = BASE_TIME + (long) (random.nextDouble() * days * DAY);
    return TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT)
        .setTenantId(tenant)
        .setRowId(row)
        .setCreatedTime(created)
        .setModifiedTime(created + random.nextInt(3_600_000))
        .setVersion(1)
        .setStatus(random.nextInt(6) == 0 ? null : random.nextInt(5))
        .setBuyerId(random.nextInt(5) == 0 ? null : (long) random.nextInt(50))
        .setSellerNick(random.nextInt(6) == 0 ? null : pick(random, NICKS))
        .setBuyerNick(random.nextInt(3) == 0 ? null : pick(random, NICKS))
        .setTitle(random.nextInt(8) == 0 ? null : pick(random, WORDS) + " " + pick(random, WORDS)
            + (random.nextBoolean() ? "" : " " + pick(random, WORDS)))
        .setPrice(random.nextInt(6) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000), 2))
        .setQuantity(random.nextInt(6) == 0 ? null : 1 + random.nextInt(10))
        .setGroupId(random.nextInt(4) == 0 ? null : (long) random.nextInt(20))
        .setAttributes(attributes(random))
        .build();
  }

  private static String attributes(Random random) {
    if (random.nextInt(5) == 0) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    if (random.nextInt(4) != 0) {
      text.append("color:").append(pick(random, COLORS));
    }
    if (random.nextBoolean()) {
      text.append(text.length() > 0 ? ";" : "").append("size:").append(pick(random, SIZES));
    }
    if (random.nextInt(3) == 0) {
      text.append(text.length() > 0 ? ";" : "").append("brand:acme");
    }
    return text.toString();
  }

  /** A partial update of {@code status} with the next version. */
  public static TransactionLogChange statusUpdate(TransactionLogChange row, Integer status) {
    return TransactionLogChange.newBuilder(row).setOp(ChangeOp.UPDATE).setVersion(row.getVersion() + 1)
        .setStatus(status).setSetColumns(List.of("status")).build();
  }

  public static TransactionLogChange delete(TransactionLogChange row) {
    return TransactionLogChange.newBuilder(row).setOp(ChangeOp.DELETE).setVersion(row.getVersion() + 1).build();
  }

  public static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
