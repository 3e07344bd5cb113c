package io.evenkeel.ingest.testing;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.Changes;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.simple.RandomSource;

/**
 * A skewed stream of changes and the final state it must leave: Zipf(θ) tenants, inserts of new rows, and repeated
 * full and partial updates (and a few deletes) of recent rows, each with the next version of its row.
 */
public final class ChangeStream {
  private final Random random;
  private final RejectionInversionZipfSampler tenants;
  private final int tenantCount;
  private final List<long[]> recent = new ArrayList<>();
  /** (tenant, row) → the row's final state, or a change with op DELETE. */
  private final Map<List<Long>, TransactionLogChange> finalState = new HashMap<>();
  private long nextRow;

  public ChangeStream(long seed, int tenantCount, double theta) {
    this.random = new Random(seed);
    UniformRandomProvider rng = RandomSource.XO_RO_SHI_RO_128_PP.create(seed);
    this.tenants = new RejectionInversionZipfSampler(rng, tenantCount, theta);
    this.tenantCount = tenantCount;
  }

  /** The next change; {@code hotTenant} >= 0 takes {@code hotShare} of the inserts. */
  public TransactionLogChange next(long now, long hotTenant, double hotShare) {
    if (!recent.isEmpty() && random.nextInt(10) < 3) {
      long[] key = recent.get(random.nextInt(recent.size()));
      return update(key[0], key[1], now);
    }
    long tenant = hotTenant >= 0 && random.nextDouble() < hotShare ? hotTenant : tenants.sample() - 1;
    long row = nextRow++;
    TransactionLogChange insert = TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT)
        .setTenantId(tenant)
        .setRowId(row)
        .setCreatedTime(now)
        .setModifiedTime(now)
        .setVersion(1)
        .setStatus(random.nextInt(5))
        .setSellerNick("seller-" + tenant)
        .setTitle("item " + row)
        .setPrice(BigDecimal.valueOf(random.nextInt(100_000), 2))
        .setQuantity(1 + random.nextInt(5))
        .build();
    finalState.put(List.of(tenant, row), insert);
    recent.add(new long[] {tenant, row});
    if (recent.size() > 2_000) {
      recent.remove(random.nextInt(recent.size()));
    }
    return insert;
  }

  private TransactionLogChange update(long tenant, long row, long now) {
    TransactionLogChange previous = finalState.get(List.of(tenant, row));
    long version = previous.getVersion() + 1;
    TransactionLogChange change;
    int kind = random.nextInt(20);
    if (kind == 0) {
      change = TransactionLogChange.newBuilder().setOp(ChangeOp.DELETE).setTenantId(tenant).setRowId(row)
          .setCreatedTime(previous.getCreatedTime()).setModifiedTime(now).setVersion(version).build();
      recent.removeIf(k -> k[0] == tenant && k[1] == row);
    } else if (kind < 10) {
      change = TransactionLogChange.newBuilder().setOp(ChangeOp.UPDATE).setTenantId(tenant).setRowId(row)
          .setCreatedTime(previous.getCreatedTime()).setModifiedTime(now).setVersion(version)
          .setStatus(random.nextInt(5)).setSetColumns(List.of("status")).build();
    } else {
      change = TransactionLogChange.newBuilder(previous)
          .setOp(ChangeOp.UPDATE).setModifiedTime(now).setVersion(version).setQuantity(1 + random.nextInt(50))
          .setSetColumns(null).build();
    }
    finalState.put(List.of(tenant, row), Changes.fold(previous, change));
    return change;
  }

  /** Rows that must be live at the end, with the version and state each must have. */
  public Map<List<Long>, TransactionLogChange> expectedLiveRows() {
    Map<List<Long>, TransactionLogChange> live = new HashMap<>();
    finalState.forEach((key, change) -> {
      if (change.getOp() != ChangeOp.DELETE) {
        live.put(key, change);
      }
    });
    return live;
  }

  public int tenantCount() {
    return tenantCount;
  }
}
