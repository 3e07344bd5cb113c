package io.evenkeel.ingest.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.ingest.source.RecordFormat;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.change.BinlogVersion;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnMapping;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Debezium's change-event envelope from a MySQL or MariaDB table, as Kafka Connect's JSON converter writes it: the
 * payload alone ({@code schemas.enable=false}, what {@code bin/evenkeel cdc} publishes) or with its schema (the
 * default of Kafka Connect), mapped to a change of {@code transaction_logs} through a {@link ColumnMapping}:
 * <ul>
 *   <li>{@code op} {@code r} (snapshot) and {@code c} are INSERTs, {@code u} an UPDATE with the full after-image,
 *       {@code d} a DELETE of the before-image's row;
 *   <li>the version is the event's binlog position, {@code file} number, {@code pos} and {@code row} packed into a
 *       long (20, 32 and 11 bits), which grows along the binlog: so a replay, or a new snapshot, changes nothing it
 *       should not;
 *   <li>{@code modified_time}, when no column feeds it, is the event's time at the source ({@code source.ts_ms});
 *   <li>times from DATETIME columns (Debezium's {@code Timestamp}, {@code MicroTimestamp}, {@code NanoTimestamp},
 *       {@code Date}: a wall-clock time without a zone) are read in {@code datetimeZone}; TIMESTAMP columns
 *       ({@code ZonedTimestamp}) are instants already; integer columns are taken as epoch milliseconds. Without the
 *       schema, an ISO-8601 string is an instant and a number a DATETIME's epoch milliseconds ({@code
 *       time.precision.mode=connect}), read in {@code datetimeZone} (so, with a zone other than UTC, an integer time
 *       column needs the schema);
 *   <li>DECIMAL values are strings (Debezium's {@code decimal.handling.mode=string}) or numbers, kept exact: one with
 *       more than two fractional digits that are not zero is refused rather than rounded.
 * </ul>
 * Columns the mapping does not use (a new nullable column, say) are ignored; a column that feeds a nullable column
 * and is missing from the event is NULL. Anything else that does not fit is an {@link IllegalArgumentException}
 * naming it, and the record a dead letter.
 */
public final class DebeziumEnvelopeFormat implements RecordFormat {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ColumnMapping mapping;
  private final ZoneId datetimeZone;

  public DebeziumEnvelopeFormat(ColumnMapping mapping, ZoneId datetimeZone) {
    this.mapping = mapping;
    this.datetimeZone = datetimeZone;
  }

  @Override
  public boolean singleObject() {
    return false;
  }

  @Override
  public TransactionLogChange decode(byte[] value) throws MalformedRecordException {
    JsonNode envelope;
    try {
      envelope = JSON.readTree(value);
    } catch (IOException e) {
      throw new MalformedRecordException("not a JSON change event: " + e.getMessage(), e);
    }
    if (envelope == null || !envelope.isObject() || !envelope.has("payload") && !envelope.has("op")) {
      throw new IllegalArgumentException("not a Debezium change event: no 'op' (or 'payload' with the schema)");
    }
    boolean withSchema = envelope.has("payload");
    JsonNode payload = withSchema ? envelope.get("payload") : envelope;
    String op = payload.path("op").asText("");
    JsonNode image = switch (op) {
      case "r", "c", "u" -> payload.get("after");
      case "d" -> payload.get("before");
      default -> throw new IllegalArgumentException("change event op '" + op + "' is not one Evenkeel applies "
          + "(r, c, u, d)");
    };
    if (image == null || image.isNull()) {
      throw new IllegalArgumentException("change event op '" + op + "' has no " + (op.equals("d") ? "before" : "after")
          + " image");
    }
    Map<String, String> semanticTypes = withSchema
        ? semanticTypes(envelope.get("schema"), op.equals("d") ? "before" : "after") : Map.of();
    Map<String, String> fieldNames = new HashMap<>();
    for (Iterator<String> names = image.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      fieldNames.put(name.toLowerCase(Locale.ROOT), name);
    }
    JsonNode source = payload.path("source");

    TransactionLogChange change = new TransactionLogChange();
    change.setOp(switch (op) {
      case "u" -> ChangeOp.UPDATE;
      case "d" -> ChangeOp.DELETE;
      default -> ChangeOp.INSERT;
    });
    change.setVersion(version(source));
    for (Column column : TransactionLogsTable.COLUMNS) {
      String sourceColumn = mapping.sourceOf(column.name());
      String field = fieldNames.get(sourceColumn.toLowerCase(Locale.ROOT));
      JsonNode node = field == null ? null : image.get(field);
      Object converted = node == null || node.isNull() ? null
          : convert(column, sourceColumn, node, field == null ? null : semanticTypes.get(field));
      if (converted == null && !column.nullable()) {
        if (column.name().equals("modified_time") && source.has("ts_ms")) {
          converted = source.get("ts_ms").asLong();
        } else if (op.equals("d") && !ColumnMapping.REQUIRED.contains(column.name())) {
          continue; // a delete needs only the row's keys and creation time
        } else {
          throw new IllegalArgumentException("change event of " + table(source) + " has no value for "
              + column.name() + " (from column " + sourceColumn + "; map another with " + column.name()
              + "=<column>)");
        }
      }
      change.put(column.name(), converted);
    }
    if (op.equals("d") && change.getModifiedTime() == 0 && source.has("ts_ms")) {
      change.setModifiedTime(source.get("ts_ms").asLong());
    }
    return change;
  }

  /** Each field of the image's schema, by name, with its semantic type name (or its plain type). */
  private static Map<String, String> semanticTypes(JsonNode schema, String image) {
    Map<String, String> types = new HashMap<>();
    for (JsonNode part : schema.path("fields")) {
      if (image.equals(part.path("field").asText())) {
        for (JsonNode field : part.path("fields")) {
          types.put(field.path("field").asText(), field.has("name") ? field.get("name").asText()
              : field.path("type").asText());
        }
      }
    }
    return types;
  }

  private Object convert(Column column, String sourceColumn, JsonNode node, String type) {
    try {
      return switch (column.type()) {
        case LONG -> column.name().endsWith("_time") ? time(node, type) : integral(node, Long.MIN_VALUE,
            Long.MAX_VALUE);
        case INT -> (int) integral(node, Integer.MIN_VALUE, Integer.MAX_VALUE);
        case DECIMAL -> decimal(node);
        case KEYWORD, TEXT, ATTRIBUTES -> node.isValueNode() ? node.asText() : fail("a string", node);
      };
    } catch (IllegalArgumentException | ArithmeticException | DateTimeParseException e) {
      throw new IllegalArgumentException("column " + sourceColumn + " (" + type + ") cannot feed " + column.name()
          + ": " + e.getMessage(), e);
    }
  }

  /** Epoch milliseconds from any of Debezium's time types, or from an integer column holding them. */
  private long time(JsonNode node, String type) {
    return switch (type == null ? "" : type) {
      case "io.debezium.time.Timestamp" -> wallClock(node.asLong());
      case "io.debezium.time.MicroTimestamp" -> wallClock(Math.floorDiv(node.asLong(), 1_000L));
      case "io.debezium.time.NanoTimestamp" -> wallClock(Math.floorDiv(node.asLong(), 1_000_000L));
      case "io.debezium.time.Date" -> wallClock(node.asLong() * 86_400_000L);
      case "io.debezium.time.ZonedTimestamp" -> Instant.parse(node.asText()).toEpochMilli();
      case "org.apache.kafka.connect.data.Timestamp" -> wallClock(node.asLong()); // DATETIME, precision "connect"
      case "int64", "int32" -> integral(node, Long.MIN_VALUE, Long.MAX_VALUE);
      // Without a schema: an ISO-8601 instant (a TIMESTAMP column), else a DATETIME's epoch milliseconds
      // (time.precision.mode=connect), read in the zone like any DATETIME.
      default -> node.isTextual() && node.asText().contains("T") ? Instant.parse(node.asText()).toEpochMilli()
          : wallClock(integral(node, Long.MIN_VALUE, Long.MAX_VALUE));
    };
  }

  /** A wall-clock time Debezium wrote as if it were UTC, read in {@link #datetimeZone}. */
  private long wallClock(long utcMillis) {
    if (datetimeZone.equals(ZoneOffset.UTC)) {
      return utcMillis;
    }
    LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(utcMillis), ZoneOffset.UTC);
    return local.atZone(datetimeZone).toInstant().toEpochMilli();
  }

  private static long integral(JsonNode node, long min, long max) {
    BigDecimal value;
    if (node.isIntegralNumber() || node.isTextual()) {
      value = new BigDecimal(node.asText().strip());
    } else {
      return fail("an integer", node);
    }
    long exact = value.longValueExact();
    if (exact < min || exact > max) {
      throw new IllegalArgumentException(exact + " is out of range [" + min + ", " + max + "]");
    }
    return exact;
  }

  private static BigDecimal decimal(JsonNode node) {
    if (!node.isNumber() && !node.isTextual()) {
      return fail("a decimal", node);
    }
    BigDecimal value = new BigDecimal(node.asText().strip());
    // Exact or refused: a price of 1.234 is not silently 1.23.
    return value.setScale(TransactionLogsTable.PRICE_SCALE, RoundingMode.UNNECESSARY);
  }

  private static <T> T fail(String expected, JsonNode node) {
    throw new IllegalArgumentException("expected " + expected + ", got " + node.getNodeType().name()
        .toLowerCase(Locale.ROOT) + " " + node);
  }

  /** The event's binlog position as its version ({@link BinlogVersion}). */
  static long version(JsonNode source) {
    return BinlogVersion.of(source.path("file").asText(""), source.path("pos").asLong(-1),
        source.path("row").asLong(0));
  }

  private static String table(JsonNode source) {
    return source.path("db").asText("?") + "." + source.path("table").asText("?");
  }
}
