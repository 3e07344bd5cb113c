package io.evenkeel.launcher.load;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * JSON Lines: one object per line, keys are column names. Blank lines are not rows and are passed over.
 *
 * <p>Each line is read as a stream of tokens, strings and integers straight into the change: building a tree per line
 * cost the loader most of its time. Any other value (null, a fraction, a boolean, an array) goes through a tree, as
 * does a line that is no object, so its error says what it got. A key given twice is an error ({@link ChangeBuilder}).
 */
final class JsonLinesReader implements RowReader {
  private static final ObjectMapper JSON = JsonMapper.builder()
      // Numbers keep their text: a price of 0.1 must not pass through binary floating point.
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();

  private final RowReader.CountingInputStream counted;
  private final BufferedReader lines;
  private final VersionClock versions = new VersionClock();
  private long line;

  JsonLinesReader(RowReader.CountingInputStream in) {
    this.counted = in;
    this.lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
  }

  @Override
  public TransactionLogChange next() throws BadLineException, IOException {
    String text;
    do {
      text = lines.readLine();
      if (text == null) {
        return null;
      }
      line++;
    } while (text.isBlank());
    try (JsonParser parser = JSON.createParser(text)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw notAnObject(text);
      }
      ChangeBuilder change = new ChangeBuilder(line);
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value == JsonToken.VALUE_STRING) {
          change.setText(field, parser.getText());
        } else if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
          change.setLong(field, parser.getLongValue());
        } else {
          change.set(field, (JsonNode) JSON.readTree(parser));
        }
      }
      JsonToken trailing = parser.nextToken();
      if (trailing != null) {
        throw new BadLineException(line, "bad JSON: more after the object: " + trailing.asString());
      }
      return change.build(System.currentTimeMillis(), versions);
    } catch (JsonParseException e) {
      throw new BadLineException(line, "bad JSON: " + e.getOriginalMessage());
    }
  }

  /** The error for a line whose JSON is no object, naming what it is. */
  private BadLineException notAnObject(String text) {
    String got;
    try {
      got = JSON.readTree(text).getNodeType().toString().toLowerCase(Locale.ROOT);
    } catch (IOException e) {
      return new BadLineException(line, "bad JSON: " + (e instanceof JsonParseException p ? p.getOriginalMessage()
          : e.getMessage()));
    }
    return new BadLineException(line, "expected a JSON object with column names as keys; got " + got);
  }

  @Override
  public long bytesRead() {
    return counted.count();
  }

  @Override
  public void close() throws IOException {
    lines.close();
  }
}
