package io.evenkeel.ingest.monitor;

/** Writes counted in one monitor window for one tenant or one shard. */
public class WindowCount {
  public static final int TENANT = 0;
  public static final int SHARD = 1;

  public long windowStart;
  public int kind;
  public long key;
  public long count;

  public WindowCount() {}

  public WindowCount(long windowStart, int kind, long key, long count) {
    this.windowStart = windowStart;
    this.kind = kind;
    this.key = key;
    this.count = count;
  }
}
