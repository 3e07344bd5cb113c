package io.evenkeel.launcher.load;

/**
 * Versions for changes whose input gives none: the wall clock in microseconds, made strictly increasing. A later
 * load of the same rows (say, a file of UPDATEs) therefore always has newer versions than an earlier one, and within
 * a file a later line wins over an earlier line of the same row, as its order says.
 */
final class VersionClock {
  private long last;

  long next() {
    long now = System.currentTimeMillis() * 1_000;
    last = Math.max(last + 1, now);
    return last;
  }
}
