package io.evenkeel.shard.testing;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.math.BigDecimal;
import java.util.List;
import java.util.Random;

/** Rows with values from small domains, so that random predicates match interesting subsets. */
public final class TestRows {
  public static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  public static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);
  public static final List<String> NICKS = List.of("ann", "bob", "Cat", "dan", "éva", "b_b", "100%");
  public static final List<String> WORDS = List.of("red", "blue", "wool", "cotton", "scarf", "shirt", "winter", "gift");

  private TestRows() {}

  public static TransactionLogChange.Builder insert(long tenant, long row, long version) {
    return TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT)
        .setTenantId(tenant)
        .setRowId(row)
        .setCreatedTime(1_000 + row)
        .setModifiedTime(1_000 + row)
        .setVersion(version);
  }

  public static TransactionLogChange random(Random random, long tenant, long row) {
    return insert(tenant, row, 1)
        .setCreatedTime(random.nextInt(10_000))
        .setModifiedTime(10_000 + random.nextInt(10_000))
        .setStatus(random.nextInt(6) == 0 ? null : random.nextInt(5))
        .setBuyerId(random.nextInt(5) == 0 ? null : (long) random.nextInt(50))
        .setSellerNick(random.nextInt(6) == 0 ? null : NICKS.get(random.nextInt(NICKS.size())))
        .setBuyerNick(random.nextInt(3) == 0 ? null : NICKS.get(random.nextInt(NICKS.size())))
        .setTitle(random.nextInt(8) == 0 ? null : WORDS.get(random.nextInt(WORDS.size())) + " "
            + WORDS.get(random.nextInt(WORDS.size())) + (random.nextBoolean() ? "" : " " + WORDS.get(random.nextInt(8))))
        .setPrice(random.nextInt(6) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000), 2))
        .setQuantity(random.nextInt(6) == 0 ? null : 1 + random.nextInt(10))
        .setGroupId(random.nextInt(4) == 0 ? null : (long) random.nextInt(20))
        .setAttributes(random.nextBoolean() ? null : "color:" + WORDS.get(random.nextInt(2)) + ";size:M")
        .build();
  }

  public static ShardWriteBatch batch(int shard, long sequence, List<TransactionLogChange> changes, boolean wait) {
    return ShardWriteBatch.newBuilder()
        .setShard(shard)
        .setSender("test")
        .setBatchSequence(sequence)
        .setSentTime(System.currentTimeMillis())
        .setWaitForRefresh(wait)
        .setChanges(changes)
        .build();
  }
}
