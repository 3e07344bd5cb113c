package io.evenkeel.shard.translog;

/** When an acknowledged write is on disk. */
public enum Durability {
  /** fsync before every acknowledgement: an acknowledged write survives a power loss. */
  REQUEST,
  /**
   * fsync every sync interval: an acknowledged write survives a process crash (the OS holds it), and a power loss
   * loses at most the last interval.
   */
  INTERVAL;

  public static Durability parse(String text) {
    for (Durability d : values()) {
      if (d.name().equalsIgnoreCase(text)) {
        return d;
      }
    }
    throw new IllegalArgumentException("durability must be 'request' or 'interval'; got: '" + text + "'");
  }
}
