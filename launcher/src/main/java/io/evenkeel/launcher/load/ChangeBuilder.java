package io.evenkeel.launcher.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Turns the fields of one input line (JSON values or CSV text) into a {@code TransactionLogChange}, checking each
 * against its column's type. Besides the columns of {@code transaction_logs}, a line may give {@code op} (INSERT,
 * UPDATE or DELETE; INSERT when absent) and {@code version}. An UPDATE is a full after-image: columns it leaves out
 * become NULL. Unknown field names are errors, so a misspelt column is never dropped silently.
 */
final class ChangeBuilder {
  static final String OP = "op";
  static final String VERSION = "version";
  static final List<String> REQUIRED = List.of("tenant_id", "row_id", "created_time");
  /** Every name a line may use, for messages. */
  static final List<String> FIELDS = Stream.concat(Stream.of(OP, VERSION),
      TransactionLogsTable.COLUMNS.stream().map(Column::name)).toList();
  private static final BigDecimal MAX_PRICE = new BigDecimal("9999999999999999.99");
  /** Each name's position in the change's schema: a field is set, and marked given, by it. */
  private static final Map<String, Integer> POSITIONS = FIELDS.stream().collect(Collectors.toUnmodifiableMap(
      name -> name, name -> TransactionLogChange.getClassSchema().getField(name).pos()));

  private final TransactionLogChange change = new TransactionLogChange();
  /** The fields given so far, a bit per position. */
  private long given;

  static {
    if (TransactionLogChange.getClassSchema().getFields().size() > Long.SIZE) {
      throw new IllegalStateException("a change has more fields than ChangeBuilder's given bits");
    }
  }
  private final long line;

  ChangeBuilder(long line) {
    this.line = line;
  }

  /** A JSON field; JSON null is SQL NULL. */
  void set(String field, JsonNode value) throws BadLineException {
    Column column = column(field);
    if (value.isNull()) {
      setNull(field, column);
      return;
    }
    if (field.equals(OP)) {
      op(value.isTextual() ? value.asText() : wrongType(field, "a string", value));
      return;
    }
    switch (column == null ? ColumnType.LONG : column.type()) {
      case LONG -> put(field, integral(field, value, Long.MIN_VALUE, Long.MAX_VALUE));
      case INT -> put(field, (int) integral(field, value, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case DECIMAL -> put(field, decimal(field, value.isTextual() || value.isNumber() ? value.asText()
          : wrongType(field, "a decimal string such as \"19.90\"", value)));
      case KEYWORD, TEXT, ATTRIBUTES -> put(field, value.isTextual() ? value.asText()
          : wrongType(field, "a string", value));
    }
  }

  /** A JSON string, the common case, without a JsonNode: the same outcome as {@link #set(String, JsonNode)}. */
  void setText(String field, String text) throws BadLineException {
    Column column = column(field);
    if (field.equals(OP)) {
      op(text);
      return;
    }
    switch (column == null ? ColumnType.LONG : column.type()) {
      case KEYWORD, TEXT, ATTRIBUTES -> put(field, text);
      case DECIMAL -> put(field, decimal(field, text));
      case LONG, INT -> set(field, TextNode.valueOf(text)); // says what was wrong
    }
  }

  /** A JSON integer that fits a long, without a JsonNode: the same outcome as {@link #set(String, JsonNode)}. */
  void setLong(String field, long value) throws BadLineException {
    Column column = column(field);
    if (field.equals(OP)) {
      set(field, LongNode.valueOf(value)); // says what was wrong
      return;
    }
    switch (column == null ? ColumnType.LONG : column.type()) {
      case LONG -> put(field, value);
      case INT -> {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
          throw new BadLineException(line, field + " " + value + " is out of range [" + Integer.MIN_VALUE + ", "
              + Integer.MAX_VALUE + "]");
        }
        put(field, (int) value);
      }
      case DECIMAL -> put(field, decimal(field, Long.toString(value)));
      case KEYWORD, TEXT, ATTRIBUTES -> set(field, LongNode.valueOf(value)); // says what was wrong
    }
  }

  /** A CSV cell; an empty cell is SQL NULL. */
  void set(String field, String text) throws BadLineException {
    Column column = column(field);
    if (text.isEmpty()) {
      setNull(field, column);
      return;
    }
    if (field.equals(OP)) {
      op(text);
      return;
    }
    switch (column == null ? ColumnType.LONG : column.type()) {
      case LONG -> put(field, parseIntegral(field, text, Long.MIN_VALUE, Long.MAX_VALUE));
      case INT -> put(field, (int) parseIntegral(field, text, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case DECIMAL -> put(field, decimal(field, text));
      case KEYWORD, TEXT, ATTRIBUTES -> put(field, text);
    }
  }

  /**
   * The change. {@code modified_time} defaults to {@code now} (a load is the change's source); {@code version} to
   * the next of {@code versions}.
   */
  TransactionLogChange build(long now, VersionClock versions) throws BadLineException {
    for (String required : REQUIRED) {
      if (!isGiven(required)) {
        throw new BadLineException(line, "missing " + required + " (every line needs " + String.join(", ", REQUIRED)
            + ")");
      }
    }
    if (!isGiven(OP)) {
      change.setOp(ChangeOp.INSERT);
    }
    if (!isGiven("modified_time")) {
      change.setModifiedTime(now);
    }
    if (!isGiven(VERSION)) {
      change.setVersion(versions.next());
    }
    return change;
  }

  private Column column(String field) throws BadLineException {
    if (field.equals(OP) || field.equals(VERSION)) {
      return null;
    }
    Column column = TransactionLogsTable.column(field).orElse(null);
    if (column == null) {
      throw new BadLineException(line, "unknown column '" + field + "'; columns are " + FIELDS);
    }
    return column;
  }

  private void setNull(String field, Column column) throws BadLineException {
    if (column == null) {
      // op or version left empty: the default applies, as when the field is absent (a CSV column mixing both).
      return;
    }
    if (!column.nullable()) {
      throw new BadLineException(line, field + " cannot be null");
    }
    change.put(markGiven(field), null);
  }

  private void put(String field, Object value) throws BadLineException {
    int position = markGiven(field);
    if (field.equals(VERSION) && (long) value < 0) {
      throw new BadLineException(line, "version must be >= 0; got: " + value);
    }
    change.put(position, value);
  }

  private boolean isGiven(String field) {
    return (given & 1L << POSITIONS.get(field)) != 0;
  }

  /** Marks {@code field} given, once: its position in the schema. */
  private int markGiven(String field) throws BadLineException {
    int position = POSITIONS.get(field);
    if ((given & 1L << position) != 0) {
      throw new BadLineException(line, field + " is given twice");
    }
    given |= 1L << position;
    return position;
  }

  private void op(String text) throws BadLineException {
    ChangeOp op;
    try {
      op = ChangeOp.valueOf(text.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new BadLineException(line, "op must be INSERT, UPDATE or DELETE; got: '" + text + "'");
    }
    markGiven(OP);
    change.setOp(op);
  }

  private long integral(String field, JsonNode value, long min, long max) throws BadLineException {
    if (!value.isIntegralNumber()) {
      wrongType(field, "an integer", value);
    }
    if (!value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
      throw new BadLineException(line, field + " " + value + " is out of range [" + min + ", " + max + "]");
    }
    return value.asLong();
  }

  private long parseIntegral(String field, String text, long min, long max) throws BadLineException {
    long value;
    try {
      value = Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      throw new BadLineException(line, field + " must be an integer; got: '" + text + "'");
    }
    if (value < min || value > max) {
      throw new BadLineException(line, field + " " + value + " is out of range [" + min + ", " + max + "]");
    }
    return value;
  }

  private BigDecimal decimal(String field, String text) throws BadLineException {
    BigDecimal value;
    try {
      value = new BigDecimal(text.strip());
    } catch (NumberFormatException e) {
      throw new BadLineException(line, field + " must be a decimal such as \"19.90\"; got: '" + text + "'");
    }
    if (value.scale() > TransactionLogsTable.PRICE_SCALE
        && value.stripTrailingZeros().scale() > TransactionLogsTable.PRICE_SCALE) {
      throw new BadLineException(line, field + " " + text + " has more than " + TransactionLogsTable.PRICE_SCALE
          + " fractional digits");
    }
    if (value.abs().compareTo(MAX_PRICE) > 0) {
      throw new BadLineException(line, field + " " + text + " exceeds decimal(18, 2)");
    }
    // The Avro decimal's scale is fixed: 19.9 is stored as 19.90.
    return value.setScale(TransactionLogsTable.PRICE_SCALE);
  }

  private <T> T wrongType(String field, String expected, JsonNode value) throws BadLineException {
    throw new BadLineException(line, field + " must be " + expected + "; got " + value.getNodeType()
        .toString().toLowerCase(Locale.ROOT) + " " + abbreviate(value.toString()));
  }

  private static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 37) + "...";
  }
}
