package io.evenkeel.launcher.cli;

/** A problem with what the user asked for, reported as one line naming it (no stack trace). */
public final class UserError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UserError(String message) {
    super(message);
  }

  public UserError(String message, Throwable cause) {
    super(message, cause);
  }
}
