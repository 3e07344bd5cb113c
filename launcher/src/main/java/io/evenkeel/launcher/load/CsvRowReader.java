package io.evenkeel.launcher.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * CSV with a header line naming the columns (RFC 4180 quoting; a quoted value may span lines). An empty value is
 * SQL NULL. Line numbers are those of the record's first line in the file.
 */
final class CsvRowReader implements RowReader {
  private final RowReader.CountingInputStream counted;
  private final CsvParser parser;
  private final VersionClock versions = new VersionClock();
  private List<String> header;
  /** The line the last record read starts on. */
  private long recordLine;
  private boolean started;

  CsvRowReader(RowReader.CountingInputStream in) throws IOException {
    this.counted = in;
    this.parser = new CsvFactory().createParser(in);
    // Without a schema, each record arrives as an array of strings.
    parser.enable(CsvParser.Feature.WRAP_AS_ARRAY);
  }

  @Override
  public TransactionLogChange next() throws BadLineException, IOException {
    if (header == null) {
      List<String> names = record();
      if (names == null) {
        return null;
      }
      Set<String> seen = new HashSet<>();
      for (String name : names) {
        if (!seen.add(name.strip())) {
          throw new IOException("line 1: the header names " + name + " twice");
        }
      }
      header = names.stream().map(String::strip).toList();
      for (String name : header) {
        if (!ChangeBuilder.FIELDS.contains(name)) {
          throw new IOException("line 1: unknown column '" + name + "' in the header; columns are "
              + ChangeBuilder.FIELDS);
        }
      }
    }
    List<String> values = record();
    if (values == null) {
      return null;
    }
    long line = recordLine;
    if (values.size() != header.size()) {
      throw new BadLineException(line, values.size() + " values for the header's " + header.size() + " columns");
    }
    ChangeBuilder change = new ChangeBuilder(line);
    for (int i = 0; i < values.size(); i++) {
      change.set(header.get(i), values.get(i));
    }
    return change.build(System.currentTimeMillis(), versions);
  }

  /** The next record's values, or null at the end; remembers the line the record starts on. */
  private List<String> record() throws IOException {
    try {
      JsonToken token = parser.nextToken();
      if (!started && token == JsonToken.START_ARRAY) {
        // WRAP_AS_ARRAY wraps the whole file in one array, and each record in its own.
        started = true;
        token = parser.nextToken();
      }
      if (token == null || token == JsonToken.END_ARRAY) {
        return null;
      }
      if (token != JsonToken.START_ARRAY) {
        throw new IOException("line " + parser.currentTokenLocation().getLineNr() + ": unexpected CSV token " + token);
      }
      List<String> values = new ArrayList<>();
      for (token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
        if (values.isEmpty()) {
          // A record's opening token is located at the end of the previous one; its first value is where it starts.
          recordLine = parser.currentTokenLocation().getLineNr();
        }
        values.add(parser.getText());
      }
      return values;
    } catch (JsonProcessingException e) {
      // Broken quoting: the parser no longer knows where records end, so nothing after it can be trusted.
      throw new IOException("line " + e.getLocation().getLineNr() + ": malformed CSV: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public long bytesRead() {
    return counted.count();
  }

  @Override
  public void close() throws IOException {
    parser.close();
  }
}
