package io.evenkeel.launcher.load;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/** JSON Lines: one object per line, keys are column names. Blank lines are not rows and are passed over. */
final class JsonLinesReader implements RowReader {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
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
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonParseException e) {
      throw new BadLineException(line, "bad JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadLineException(line, "bad JSON: " + e.getMessage());
    }
    if (!node.isObject()) {
      throw new BadLineException(line, "expected a JSON object with column names as keys; got "
          + node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
    }
    ChangeBuilder change = new ChangeBuilder(line);
    for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      change.set(field.getKey(), field.getValue());
    }
    return change.build(System.currentTimeMillis(), versions);
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
