package io.evenkeel.ingest.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.ColumnMapping;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Debezium envelopes as the MariaDB connector writes them (schema included), mapped to changes. */
class DebeziumEnvelopeFormatTest {
  private static final ColumnMapping MAPPING = ColumnMapping.parse(
      "tenant_id=seller_id,row_id=order_id,created_time=created_at,modified_time=updated_at");
  private static final String IMAGE_SCHEMA = "{\"type\":\"struct\",\"optional\":true,\"fields\":["
      + "{\"type\":\"int64\",\"optional\":false,\"field\":\"seller_id\"},"
      + "{\"type\":\"int64\",\"optional\":false,\"field\":\"order_id\"},"
      + "{\"type\":\"int64\",\"optional\":false,\"name\":\"io.debezium.time.Timestamp\",\"field\":\"created_at\"},"
      + "{\"type\":\"string\",\"optional\":false,\"name\":\"io.debezium.time.ZonedTimestamp\",\"field\":\"updated_at\"},"
      + "{\"type\":\"int32\",\"optional\":true,\"field\":\"status\"},"
      + "{\"type\":\"string\",\"optional\":true,\"field\":\"title\"},"
      + "{\"type\":\"string\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"field\":\"price\"}]}";

  private static byte[] event(String op, String before, String after, String file, long pos, int row) {
    String schema = "{\"type\":\"struct\",\"fields\":[" + IMAGE_SCHEMA.replaceFirst("\\{", "{\"field\":\"before\",")
        + "," + IMAGE_SCHEMA.replaceFirst("\\{", "{\"field\":\"after\",") + "]}";
    String payload = "{\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"db\":\"shop\",\"table\":"
        + "\"orders\",\"file\":\"" + file + "\",\"pos\":" + pos + ",\"row\":" + row + ",\"ts_ms\":1793527300000},"
        + "\"op\":\"" + op + "\",\"ts_ms\":1793527300100}";
    return ("{\"schema\":" + schema + ",\"payload\":" + payload + "}").getBytes(StandardCharsets.UTF_8);
  }

  private static String row(String price) {
    return "{\"seller_id\":7,\"order_id\":70,\"created_at\":1793527200123,\"updated_at\":\"2026-11-01T10:01:00.5Z\","
        + "\"status\":2,\"title\":\"a lamp\",\"price\":" + price + ",\"new_column\":\"ignored\"}";
  }

  private final DebeziumEnvelopeFormat format = new DebeziumEnvelopeFormat(MAPPING, ZoneOffset.UTC);

  @Test
  void snapshotRowsAndInsertsAreInsertsWithTheirBinlogPositionAsVersion() throws Exception {
    TransactionLogChange change = format.decode(event("r", "null", row("\"19.90\""), "binlog.000002", 4_567, 0));
    assertThat(change.getOp()).isEqualTo(ChangeOp.INSERT);
    assertThat(change.getTenantId()).isEqualTo(7);
    assertThat(change.getRowId()).isEqualTo(70);
    assertThat(change.getCreatedTime()).isEqualTo(1_793_527_200_123L);
    assertThat(change.getModifiedTime()).isEqualTo(1_793_527_260_500L);
    assertThat(change.getStatus()).isEqualTo(2);
    assertThat(change.getTitle()).isEqualTo("a lamp");
    assertThat(change.getPrice()).isEqualTo(new BigDecimal("19.90"));
    assertThat(change.getBuyerNick()).isNull();

    long snapshot = change.getVersion();
    long later = format.decode(event("u", row("\"19.90\""), row("\"21.00\""), "binlog.000002", 9_000, 0)).getVersion();
    long nextRow = format.decode(event("u", row("\"19.90\""), row("\"21.00\""), "binlog.000002", 9_000, 1))
        .getVersion();
    long nextFile = format.decode(event("c", "null", row("null"), "binlog.000003", 4, 0)).getVersion();
    assertThat(snapshot).isLessThan(later);
    assertThat(later).isLessThan(nextRow);
    assertThat(nextRow).isLessThan(nextFile);
  }

  @Test
  void updatesCarryTheAfterImageAndDeletesTheBeforeImagesKeys() throws Exception {
    TransactionLogChange update = format.decode(event("u", row("\"19.90\""), row("null"), "binlog.000001", 500, 0));
    assertThat(update.getOp()).isEqualTo(ChangeOp.UPDATE);
    assertThat(update.getSetColumns()).isNull();
    assertThat(update.getPrice()).isNull();
    TransactionLogChange delete = format.decode(event("d", row("\"19.90\""), "null", "binlog.000001", 600, 0));
    assertThat(delete.getOp()).isEqualTo(ChangeOp.DELETE);
    assertThat(delete.getRowId()).isEqualTo(70);
    assertThat(delete.getCreatedTime()).isEqualTo(1_793_527_200_123L);
  }

  @Test
  void datetimeValuesAreReadInTheStatedZone() throws Exception {
    DebeziumEnvelopeFormat berlin = new DebeziumEnvelopeFormat(MAPPING, ZoneId.of("Europe/Berlin"));
    TransactionLogChange change = berlin.decode(event("c", "null", row("null"), "binlog.000001", 700, 0));
    assertThat(change.getCreatedTime()).isEqualTo(1_793_527_200_123L - 3_600_000L); // 10:00 in Berlin is 09:00 UTC
    assertThat(change.getModifiedTime()).as("TIMESTAMP: an instant already").isEqualTo(1_793_527_260_500L);
  }

  @Test
  void aPayloadWithoutItsSchemaReadsTheSame() throws Exception {
    String payload = "{\"before\":null,\"after\":" + row("\"19.90\"") + ",\"source\":{\"db\":\"shop\","
        + "\"table\":\"orders\",\"file\":\"binlog.000002\",\"pos\":4567,\"row\":0,\"ts_ms\":1793527300000},"
        + "\"op\":\"c\",\"ts_ms\":1793527300100}";
    TransactionLogChange change = format.decode(payload.getBytes(StandardCharsets.UTF_8));
    assertThat(change).isEqualTo(format.decode(event("c", "null", row("\"19.90\""), "binlog.000002", 4_567, 0)));
    String delete = "{\"before\":" + row("\"19.90\"") + ",\"after\":null,\"source\":{\"db\":\"shop\","
        + "\"table\":\"orders\",\"file\":\"binlog.000002\",\"pos\":5000,\"row\":0,\"ts_ms\":1793527300000},"
        + "\"op\":\"d\",\"ts_ms\":1793527300100}";
    assertThat(format.decode(delete.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(format.decode(event("d", row("\"19.90\""), "null", "binlog.000002", 5_000, 0)));
    DebeziumEnvelopeFormat berlin = new DebeziumEnvelopeFormat(MAPPING, ZoneId.of("Europe/Berlin"));
    assertThat(berlin.decode(payload.getBytes(StandardCharsets.UTF_8)).getCreatedTime())
        .as("a DATETIME's milliseconds, read in the zone").isEqualTo(1_793_527_200_123L - 3_600_000L);
  }

  /** The CDC runner's delete of a row a second snapshot lacks: a before-image of the routing columns alone. */
  @Test
  void aDeleteWithOnlyTheRoutingColumnsDeletesTheRow() throws Exception {
    String delete = "{\"before\":{\"seller_id\":7,\"order_id\":70,\"created_at\":1793527200123},\"after\":null,"
        + "\"source\":{\"db\":\"shop\",\"table\":\"orders\",\"file\":\"binlog.000002\",\"pos\":5001,\"row\":0,"
        + "\"snapshot\":\"false\",\"ts_ms\":1793527300000},\"op\":\"d\",\"ts_ms\":1793527300000}";
    TransactionLogChange change = format.decode(delete.getBytes(StandardCharsets.UTF_8));
    assertThat(change.getOp()).isEqualTo(ChangeOp.DELETE);
    assertThat(change.getTenantId()).isEqualTo(7);
    assertThat(change.getRowId()).isEqualTo(70);
    assertThat(change.getCreatedTime()).isEqualTo(1_793_527_200_123L);
    assertThat(change.getVersion()).as("just after an event at position 5000")
        .isGreaterThan(format.decode(event("u", row("\"1.00\""), row("\"2.00\""), "binlog.000002", 5_000, 7))
            .getVersion());
  }

  @Test
  void whatDoesNotFitIsRefusedWithTheReason() {
    assertThatThrownBy(() -> format.decode(event("c", "null", row("\"1.234\""), "binlog.000001", 1, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column price")
        .hasMessageContaining("feed price");
    DebeziumEnvelopeFormat unmapped = new DebeziumEnvelopeFormat(ColumnMapping.identity(), ZoneOffset.UTC);
    assertThatThrownBy(() -> unmapped.decode(event("c", "null", row("null"), "binlog.000001", 1, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no value for tenant_id (from column tenant_id; map another with tenant_id=");
    assertThatThrownBy(() -> format.decode(event("t", "null", "null", "binlog.000001", 1, 0)))
        .hasMessageContaining("op 't' is not one Evenkeel applies");
    assertThatThrownBy(() -> format.decode("{\"before\":{}}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("not a Debezium change event");
  }
}
