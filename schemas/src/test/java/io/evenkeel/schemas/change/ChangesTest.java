package io.evenkeel.schemas.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
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
}
