package io.evenkeel.launcher.load;

import io.evenkeel.schemas.TransactionLogChange;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads changes from a file, one per line (JSON Lines) or record (CSV with a header). {@link #next} throws a
 * {@link BadLineException} for a line that is not a valid change and can be called again to go on after it; an
 * {@link IOException} ends the read (the file cannot be read, or its syntax lost track of where lines end).
 */
public interface RowReader extends Closeable {
  /** The next change, or null at the end of the file. */
  TransactionLogChange next() throws BadLineException, IOException;

  /** Bytes of the file consumed so far (for progress). */
  long bytesRead();

  enum Format {
    JSONL, CSV;

    /** From the file name: .csv is CSV; .jsonl, .ndjson and .json are JSON Lines. */
    static Format of(Path file) {
      String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
      if (name.endsWith(".csv")) {
        return CSV;
      }
      if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) {
        return JSONL;
      }
      throw new IllegalArgumentException("cannot tell the format of " + file + " from its name (.jsonl, .ndjson, "
          + ".json or .csv); give --format jsonl or --format csv");
    }
  }

  static RowReader open(Path file, Format format) throws IOException {
    CountingInputStream in = new CountingInputStream(Files.newInputStream(file));
    return format == Format.CSV ? new CsvRowReader(in) : new JsonLinesReader(in);
  }

  /** Counts the bytes read through it. */
  final class CountingInputStream extends java.io.FilterInputStream {
    private long count;

    CountingInputStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      count += b < 0 ? 0 : 1;
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      count += Math.max(n, 0);
      return n;
    }

    long count() {
      return count;
    }
  }
}
