package io.evenkeel.schemas.change;

/**
 * The version of a change captured from a MySQL or MariaDB binlog: its position packed into a long (file number,
 * then position, then row within the event: 20, 32 and 11 bits), which grows along the binlog. The ingest job
 * versions CDC changes with it, and the CDC runner places the deletes it makes after a second snapshot by it: both
 * must order positions the same way.
 */
public final class BinlogVersion {
  private static final int ROW_BITS = 11;
  private static final int POS_BITS = 32;
  private static final int FILE_BITS = 63 - POS_BITS - ROW_BITS;

  private BinlogVersion() {}

  /**
   * The version of {@code file} (its number after the last dot, as in {@code binlog.000002}), {@code pos} and
   * {@code row}; throws {@link IllegalArgumentException} naming what does not fit.
   */
  public static long of(String file, long pos, long row) {
    int dot = file.lastIndexOf('.');
    long number;
    try {
      number = Long.parseLong(file.substring(dot + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("change event has no binlog file in its source: '" + file + "'");
    }
    if (number < 0 || number >= 1L << FILE_BITS || pos < 0 || pos >= 1L << POS_BITS || row < 0
        || row >= 1L << ROW_BITS) {
      throw new IllegalArgumentException("binlog position " + file + ":" + pos + " row " + row
          + " does not fit a version (files below " + (1L << FILE_BITS) + ", positions below 2^32, rows per event "
          + "below " + (1L << ROW_BITS) + ")");
    }
    return number << (POS_BITS + ROW_BITS) | pos << ROW_BITS | row;
  }
}
