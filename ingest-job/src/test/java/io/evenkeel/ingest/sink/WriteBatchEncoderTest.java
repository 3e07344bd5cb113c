package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriteBatchEncoderTest {
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  private static TransactionLogChange change(long row) {
    return TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(7).setRowId(row)
        .setCreatedTime(1_700_000_000_000L).setModifiedTime(1_700_000_000_000L + row).setVersion(row)
        .setTitle(row % 2 == 0 ? "red shoes " + row : null).setPrice(new BigDecimal("19.90"))
        .setAttributes("size:M;colour:red").build();
  }

  private static ShardWriteBatch batch(List<TransactionLogChange> changes) {
    return ShardWriteBatch.newBuilder().setShard(3).setSender("ingest-0").setBatchSequence(41)
        .setSentTime(1_700_000_000_123L).setChanges(changes).build();
  }

  @Test
  void copiedBodiesGiveExactlyAvrosEncodingOfTheBatch() {
    List<RoutedChange> routed = new ArrayList<>();
    List<TransactionLogChange> changes = new ArrayList<>();
    for (int row = 0; row < 200; row++) {
      TransactionLogChange change = change(row);
      byte[] encoded = switch (row % 3) {
        case 0 -> CHANGES.encode(change); // as it arrived: copied
        case 1 -> null; // folded: encoded again
        default -> {
          byte[] foreign = CHANGES.encode(change); // another writer schema: encoded again
          foreign[5] ^= 1;
          yield foreign;
        }
      };
      assertThat(CHANGES.ownHeaderLength(encoded)).as("header of row %d", row).isEqualTo(row % 3 == 0 ? 10 : 0);
      routed.add(new RoutedChange(3, change, encoded, "changes", 0, row, row));
      changes.add(change);
    }
    assertThat(WriteBatchEncoder.encode(batch(List.of()), routed)).isEqualTo(BATCHES.encode(batch(changes)));
    assertThat(WriteBatchEncoder.encode(batch(List.of()), List.of())).isEqualTo(BATCHES.encode(batch(List.of())));
  }
}
