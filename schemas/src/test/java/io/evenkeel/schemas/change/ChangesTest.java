package io.evenkeel.schemas.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangesTest {
  private static TransactionLogChange.Builder change(ChangeOp op, long version) {
    return TransactionLogChange.newBuilder().setOp(op).setTenantId(1).setRowId(2).setCreatedTime(10)
        .setModifiedTime(10 + version).setVersion(version);
  }

  @Test
  void partialUpdatesFoldOntoAFullImage() {
    TransactionLogChange insert = change(ChangeOp.INSERT, 1).setTitle("scarf").setStatus(1).build();
    TransactionLogChange update = change(ChangeOp.UPDATE, 2).setStatus(3).setSetColumns(List.of("status")).build();
    TransactionLogChange folded = Changes.fold(insert, update);
    assertThat(folded.getSetColumns()).isNull();
    assertThat(folded.getTitle()).isEqualTo("scarf");
    assertThat(folded.getStatus()).isEqualTo(3);
    assertThat(folded.getVersion()).isEqualTo(2);
  }

  @Test
  void twoPartialUpdatesFoldIntoOne() {
    TransactionLogChange a = change(ChangeOp.UPDATE, 2).setStatus(3).setSetColumns(List.of("status")).build();
    TransactionLogChange b = change(ChangeOp.UPDATE, 3).setTitle("new").setStatus(null)
        .setSetColumns(List.of("title")).build();
    TransactionLogChange folded = Changes.fold(a, b);
    assertThat(folded.getSetColumns()).containsExactly("status", "title");
    assertThat(folded.getStatus()).isEqualTo(3);
    assertThat(folded.getTitle()).isEqualTo("new");
    assertThat(folded.getVersion()).isEqualTo(3);
  }

  @Test
  void aPartialUpdateAfterADeleteStartsFromAnEmptyRow() {
    TransactionLogChange delete = change(ChangeOp.DELETE, 2).build();
    TransactionLogChange update = change(ChangeOp.UPDATE, 3).setStatus(4).setSetColumns(List.of("status")).build();
    TransactionLogChange folded = Changes.fold(delete, update);
    assertThat(folded.getSetColumns()).isNull();
    assertThat(folded.getStatus()).isEqualTo(4);
    assertThat(folded.getTitle()).isNull();
    assertThat(Changes.fold(update, delete)).isEqualTo(delete);
  }

  @Test
  void changesThatCouldNotBeRoutedOrIndexedAreRefusedWithTheReason() {
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1).setRowId(-2).build()))
        .hasMessage("INSERT of row 1:-2 (version 1): tenant_id and row_id must not be negative");
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1).setCreatedTime(-1).build()))
        .hasMessage("INSERT of row 1:2 (version 1): created_time -1 is not an epoch millisecond from 1970 to 9999");
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1).setModifiedTime(Long.MAX_VALUE).build()))
        .hasMessageContaining("modified_time " + Long.MAX_VALUE + " is not an epoch millisecond");
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, -1).build()))
        .hasMessage("INSERT of row 1:2 (version -1): version must not be negative");
    // 10,923 three-byte characters: 32,769 bytes, one character over the term limit.
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1).setBuyerNick("\u20ac".repeat(10_923))
        .build())).hasMessage("INSERT of row 1:2 (version 1): buyer_nick is 32769 bytes of UTF-8; at most 32766");
    Changes.validate(change(ChangeOp.INSERT, 1).setBuyerNick("\u20ac".repeat(10_922)).build());
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1)
        .setAttributes("color:red;size:" + "x".repeat(40_000)).build()))
        .hasMessage("INSERT of row 1:2 (version 1): an attribute is 40005 bytes of UTF-8; at most 32766");
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1).setTitle("w ".repeat(600_000)).build()))
        .hasMessage("INSERT of row 1:2 (version 1): title is 1200000 bytes of UTF-8; at most 1048576");
    assertThatThrownBy(() -> Changes.validate(change(ChangeOp.INSERT, 1)
        .setPrice(new BigDecimal("12345678901234567.00")).build()))
        .hasMessage("INSERT of row 1:2 (version 1): price 12345678901234567.00 has more than 16 integer digits");
    Changes.validate(change(ChangeOp.INSERT, 1).setPrice(new BigDecimal("9999999999999999.99")).build());
  }
}
