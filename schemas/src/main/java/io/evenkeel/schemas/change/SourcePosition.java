package io.evenkeel.schemas.change;

import io.evenkeel.schemas.CdcPosition;
import java.util.Map;
import java.util.TreeMap;

/**
 * A point in a MySQL or MariaDB binlog that a writer names to learn when its changes are searchable: a binlog file
 * and position ({@code SHOW MASTER STATUS} after the commit), or MariaDB GTIDs ({@code SELECT @@last_gtid} in the
 * committing session). The CDC runner has published everything up to it once its {@link CdcPosition} is at or past
 * it.
 */
public final class SourcePosition {
  /** The CDC runner's positions of the change topic {@code changeTopic}: one partition, the latest record counts. */
  public static String topicOf(String changeTopic) {
    return "__evenkeel-cdc-position." + changeTopic;
  }

  private final String file;
  private final long position;
  /** MariaDB GTIDs: sequence number by replication domain. */
  private final Map<Long, Long> sequences;

  private SourcePosition(String file, long position, Map<Long, Long> sequences) {
    this.file = file;
    this.position = position;
    this.sequences = sequences;
  }

  /** {@code FILE:POSITION}, as {@code binlog.000003:4217}; throws {@link IllegalArgumentException} naming the form. */
  public static SourcePosition binlog(String text) {
    int colon = text.lastIndexOf(':');
    String file = colon < 0 ? "" : text.substring(0, colon).strip();
    try {
      long position = Long.parseLong(text.substring(colon + 1).strip());
      if (colon < 0 || position < 0 || file.lastIndexOf('.') <= 0) {
        throw new NumberFormatException();
      }
      BinlogVersion.of(file, position, 0); // a position the CDC path can order, as it versions changes
      return new SourcePosition(file, position, Map.of());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a binlog position is FILE:POSITION as SHOW MASTER STATUS shows it, such as "
          + "binlog.000003:4217; got '" + text + "'");
    }
  }

  /**
   * MariaDB GTIDs, {@code DOMAIN-SERVER-SEQUENCE} comma-separated, as {@code 0-1-57}; throws {@link
   * IllegalArgumentException} naming the form.
   */
  public static SourcePosition gtids(String text) {
    Map<Long, Long> sequences = mariaDbGtids(text);
    if (sequences == null || sequences.isEmpty()) {
      throw new IllegalArgumentException("GTIDs are MariaDB's DOMAIN-SERVER-SEQUENCE, comma-separated, as SELECT "
          + "@@last_gtid shows them, such as 0-1-57; got '" + text + "'");
    }
    return new SourcePosition(null, -1, sequences);
  }

  /**
   * Whether {@code published} is at or past this position. Throws {@link IllegalArgumentException} when the two
   * cannot be compared: binlog files of another server's name, or GTIDs against a source without them.
   */
  public boolean reachedBy(CdcPosition published) {
    if (file != null) {
      String publishedFile = published.getBinlogFile();
      if (!base(publishedFile).equals(base(file))) {
        throw new IllegalArgumentException("the CDC runner reads binlog files named " + base(publishedFile)
            + ".NNNNNN, not " + file);
      }
      return BinlogVersion.of(publishedFile, published.getBinlogPosition(), 0) >= BinlogVersion.of(file, position, 0);
    }
    // No GTIDs yet: the source has committed no transaction since its binlog began.
    Map<Long, Long> publishedSequences = mariaDbGtids(published.getGtids() == null ? "" : published.getGtids());
    if (publishedSequences == null) {
      throw new IllegalArgumentException("the CDC runner's source has no MariaDB GTIDs (" + published.getGtids()
          + "); name a binlog position");
    }
    for (Map.Entry<Long, Long> wanted : sequences.entrySet()) {
      if (publishedSequences.getOrDefault(wanted.getKey(), -1L) < wanted.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** The published position as a user would name it. */
  public static String describe(CdcPosition published) {
    return published.getBinlogFile() + ":" + published.getBinlogPosition()
        + (published.getGtids() == null ? "" : " (GTIDs " + published.getGtids() + ")");
  }

  @Override
  public String toString() {
    if (file != null) {
      return file + ":" + position;
    }
    StringBuilder text = new StringBuilder();
    sequences.forEach((domain, sequence) -> text.append(text.isEmpty() ? "" : ",").append("GTID domain ")
        .append(domain).append(" sequence ").append(sequence));
    return text.toString();
  }

  private static String base(String file) {
    return file.substring(0, Math.max(file.lastIndexOf('.'), 0));
  }

  /** Sequence by domain (the highest where a domain repeats), or null when the text is not MariaDB GTIDs. */
  private static Map<Long, Long> mariaDbGtids(String text) {
    Map<Long, Long> sequences = new TreeMap<>();
    if (text.isBlank()) {
      return sequences;
    }
    for (String gtid : text.split(",", 1_025)) {
      String[] parts = gtid.strip().split("-", -1);
      try {
        if (parts.length != 3) {
          return null;
        }
        long domain = Long.parseLong(parts[0]);
        long server = Long.parseLong(parts[1]);
        long sequence = Long.parseLong(parts[2]);
        if (domain < 0 || server < 0 || sequence < 0) {
          return null;
        }
        sequences.merge(domain, sequence, Math::max);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return sequences;
  }
}
