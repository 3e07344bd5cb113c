package io.evenkeel.query.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.parse.StatementParser;
import java.math.BigDecimal;
import java.util.Arrays;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class CursorTest {
  @Test
  void aTokenGivesBackItsStatementParametersAndPositionExactly() {
    List<Object> after = Arrays.asList(new BigDecimal("12.50"), null, "nick ' \" é", Long.MIN_VALUE, 7L);
    Cursor cursor = new Cursor("SELECT * FROM transaction_logs WHERE tenant_id = ? LIMIT 10", List.of(3L, true),
        ZoneId.of("Asia/Shanghai"), after);
    Cursor decoded = Cursor.decode(cursor.encode());
    assertThat(decoded).isEqualTo(cursor);
    assertThat(((BigDecimal) decoded.after().get(0)).scale()).isEqualTo(2);
    assertThat(cursor.encode()).matches("[A-Za-z0-9_-]+");
  }

  @Test
  void whatIsNotATokenIsRefusedSayingSo() {
    assertThatThrownBy(() -> Cursor.decode("%%%")).hasMessageContaining("not a cursor");
    assertThatThrownBy(() -> Cursor.decode("e30")).hasMessageContaining("lacks sql"); // {}
  }

  @Test
  void thePageAfterAPositionKeepsTheWhereClauseAndStartsAtOffsetZero() {
    SelectStatement asked = StatementParser.parse("SELECT row_id FROM transaction_logs WHERE tenant_id = 3 "
        + "ORDER BY status DESC LIMIT 10 OFFSET 20", List.of());
    SelectStatement next = Keyset.after(asked, Arrays.asList(2L, 3L, 99L));
    assertThat(next.offset()).isZero();
    assertThat(next.limit()).isEqualTo(10);
    // status is nullable: after 2 descending come the smaller values, then the NULLs.
    assertThat(next.where().toString()).isEqualTo("((tenant_id = 3) AND (((status < 2) OR (status IS NULL)) OR "
        + "((status = 2) AND (tenant_id > 3)) OR ((status = 2) AND (tenant_id = 3) AND (row_id > 99))))");
    SelectStatement afterNull = Keyset.after(asked, Arrays.asList(null, 3L, 99L));
    assertThat(afterNull.where().toString()).isEqualTo("((tenant_id = 3) AND (((status IS NULL) AND (tenant_id > 3)) "
        + "OR ((status IS NULL) AND (tenant_id = 3) AND (row_id > 99))))");
  }

  @Test
  void onlyPagesOfRowsOrderedByColumnsTheShardsSortByCanContinue() {
    assertThat(Keyset.pageable(parse("SELECT * FROM transaction_logs LIMIT 5"))).isTrue();
    assertThat(Keyset.pageable(parse("SELECT * FROM transaction_logs ORDER BY price DESC LIMIT 5"))).isTrue();
    assertThat(Keyset.pageable(parse("SELECT * FROM transaction_logs"))).isFalse();
    assertThat(Keyset.pageable(parse("SELECT * FROM transaction_logs ORDER BY title LIMIT 5"))).isFalse();
    assertThat(Keyset.pageable(parse("SELECT * FROM transaction_logs ORDER BY price * 2 LIMIT 5"))).isFalse();
    assertThat(Keyset.pageable(parse("SELECT DISTINCT status FROM transaction_logs LIMIT 5"))).isFalse();
    assertThatThrownBy(() -> Keyset.after(parse("SELECT * FROM transaction_logs LIMIT 5"), List.of(1L)))
        .hasMessageContaining("holds 1 key values");
  }

  private static SelectStatement parse(String sql) {
    return StatementParser.parse(sql, List.of());
  }
}
