package io.evenkeel.launcher.load;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * JSON Lines: one object per line, keys are column names. Blank lines are not rows and are passed over.
 *
 * <p>Each line is read as a stream of tokens, strings and integers straight into the change: building a tree per line
 * cost the loader most of its time. Any other value (null, a fraction, a boolean, an array) goes through a tree, as
 * does a line that is no object, so its error says what it got. A key given twice is an error ({@link ChangeBuilder}).
 *
 * <p>Lines are found in the file's bytes and parsed as UTF-8 bytes: decoding each line to a string first, then
 * parsing its characters, was a fifth of the loader's time. A line ends at LF; a CR before it is part of the line
 * end. Bytes that are not UTF-8 make the line bad, with the parser's reason.
 */
final class JsonLinesReader implements RowReader {
  private static final ObjectMapper JSON = JsonMapper.builder()
      // Numbers keep their text: a price of 0.1 must not pass through binary floating point.
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();

  private final RowReader.CountingInputStream in;
  private final VersionClock versions = new VersionClock();
  /** Bytes read and not yet returned as lines: {@code [unread, filled)}; it grows to hold the longest line. */
  private byte[] buffer = new byte[1 << 16];
  private int unread;
  private int filled;
  private boolean endOfFile;
  /** The current line: {@code [lineStart, lineEnd)} of {@link #buffer}, without its line end. */
  private int lineStart;
  private int lineEnd;
  private long line;

  JsonLinesReader(RowReader.CountingInputStream in) {
    this.in = in;
  }

  @Override
  public TransactionLogChange next() throws BadLineException, IOException {
    do {
      if (!nextLine()) {
        return null;
      }
      line++;
    } while (isBlank());
    try (JsonParser parser = JSON.createParser(buffer, lineStart, lineEnd - lineStart)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw notAnObject(new String(buffer, lineStart, lineEnd - lineStart, StandardCharsets.UTF_8));
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

  /** Moves to the next line; false at the end of the file. */
  private boolean nextLine() throws IOException {
    int scanned = unread;
    while (true) {
      for (int i = scanned; i < filled; i++) {
        if (buffer[i] == '\n') {
          setLine(unread, i);
          unread = i + 1;
          return true;
        }
      }
      if (endOfFile) {
        if (unread == filled) {
          return false;
        }
        setLine(unread, filled);
        unread = filled;
        return true;
      }
      scanned = filled - unread;
      System.arraycopy(buffer, unread, buffer, 0, scanned);
      filled = scanned;
      unread = 0;
      if (filled == buffer.length) {
        buffer = Arrays.copyOf(buffer, buffer.length * 2);
      }
      int read = in.read(buffer, filled, buffer.length - filled);
      if (read < 0) {
        endOfFile = true;
      } else {
        filled += read;
      }
    }
  }

  private void setLine(int start, int end) {
    lineStart = start;
    lineEnd = end > start && buffer[end - 1] == '\r' ? end - 1 : end;
  }

  /** Whether the line holds only white space, as {@link String#isBlank} tells. */
  private boolean isBlank() {
    for (int i = lineStart; i < lineEnd; i++) {
      if (buffer[i] < 0) {
        return new String(buffer, lineStart, lineEnd - lineStart, StandardCharsets.UTF_8).isBlank();
      }
      if (!Character.isWhitespace(buffer[i])) {
        return false;
      }
    }
    return true;
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
    return in.count();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
