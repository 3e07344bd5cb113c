package io.evenkeel.router.protocol;

/** {@link Participant#route} waited as long as it was allowed and the write is still pending; it was not routed. */
public final class RoutingPendingException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String reason;

  RoutingPendingException(long waitedMs, String reason) {
    super("write still pending after " + waitedMs + " ms: " + reason);
    this.reason = reason;
  }

  /** Why the write is held back, as {@link Routing#pendingReason()} gives it. */
  public String reason() {
    return reason;
  }
}
