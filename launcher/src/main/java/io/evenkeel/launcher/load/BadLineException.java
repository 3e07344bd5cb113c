package io.evenkeel.launcher.load;

/** A line of the input that is not a valid change: its number (1-based) and why. The reader can go on after it. */
public final class BadLineException extends Exception {
  private static final long serialVersionUID = 1L;

  private final long line;
  private final String reason;

  public BadLineException(long line, String reason) {
    super("line " + line + ": " + reason);
    this.line = line;
    this.reason = reason;
  }

  public long line() {
    return line;
  }

  public String reason() {
    return reason;
  }
}
