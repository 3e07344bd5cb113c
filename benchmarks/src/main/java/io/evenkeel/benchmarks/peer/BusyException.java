package io.evenkeel.benchmarks.peer;

import java.io.IOException;

/**
 * A system under test answered that it is too busy for a call now (HTTP 429 or 503): load shedding, which a benchmark
 * at saturation counts as a refusal instead of stopping on it.
 */
public final class BusyException extends IOException {
  private static final long serialVersionUID = 1L;

  public BusyException(String message) {
    super(message);
  }

  /** An HTTP status a client retries later: the server shed the call rather than failed it. */
  static boolean isBusy(int status) {
    return status == 429 || status == 503;
  }
}
