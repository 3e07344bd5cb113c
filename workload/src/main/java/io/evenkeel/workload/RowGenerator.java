package io.evenkeel.workload;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.simple.RandomSource;

/**
 * Realistic full rows of {@code transaction_logs} in a fixed order for a seed: Zipf(θ)-skewed tenants, titles of 3-6
 * words from a 1,000-word vocabulary, ~10 attributes per row from Zipf-popular keys.
 */
public final class RowGenerator {
  private static final long START = 1_762_000_000_000L;

  private final UniformRandomProvider random;
  private final ZipfTenants tenants;
  private final ZipfTenants attributeKeys;
  private long next;

  public RowGenerator(long seed, int tenantCount, double theta) {
    this.random = RandomSource.XO_RO_SHI_RO_128_PP.create(seed);
    this.tenants = new ZipfTenants(random, tenantCount, theta);
    this.attributeKeys = new ZipfTenants(random, 1_500, 1.0);
  }

  public ZipfTenants tenants() {
    return tenants;
  }

  /** The next row: row ids count up from 0, creation times advance 1 ms every 10 rows. */
  public TransactionLogChange next() {
    long row = next++;
    long tenant = tenants.next();
    long created = createdTime(row);
    StringBuilder title = new StringBuilder();
    int words = 3 + random.nextInt(4);
    for (int i = 0; i < words; i++) {
      title.append(i == 0 ? "" : " ").append('w').append(random.nextInt(1_000));
    }
    StringBuilder attributes = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      attributes.append(i == 0 ? "" : ";").append('k').append(attributeKeys.next()).append(':').append(random.nextInt(50));
    }
    return TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT)
        .setTenantId(tenant)
        .setRowId(row)
        .setCreatedTime(created)
        .setModifiedTime(created)
        .setVersion(1)
        .setStatus(random.nextInt(6))
        .setBuyerId((long) random.nextInt(1_000_000))
        .setSellerNick("seller-" + tenant)
        .setBuyerNick("buyer-" + random.nextInt(100_000))
        .setTitle(title.toString())
        .setPrice(BigDecimal.valueOf(random.nextInt(1_000_000), 2))
        .setQuantity(1 + random.nextInt(10))
        .setGroupId((long) random.nextInt(1_000))
        .setAttributes(attributes.toString())
        .build();
  }

  /** The creation time of row {@code row}. */
  public static long createdTime(long row) {
    return START + row / 10;
  }

  public static long startTime() {
    return START;
  }
}
