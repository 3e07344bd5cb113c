package io.evenkeel.cluster.lifecycle;

import java.util.concurrent.atomic.AtomicReference;

/**
 * LATENT, then STARTED once, then CLOSED for good (Curator's recipes do the same): the state of a service that starts
 * once and closes idempotently.
 */
public final class Lifecycle {
  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final String what;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

  public Lifecycle(String what) {
    this.what = what;
  }

  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException(what + " cannot be started more than once (state: " + state.get() + ")");
    }
  }

  /** True the first time only, so that {@code close()} is idempotent. */
  public boolean close() {
    return state.getAndSet(State.CLOSED) != State.CLOSED;
  }

  /** True when this call closed a started service: one never started has nothing to release. */
  public boolean closeStarted() {
    return state.getAndSet(State.CLOSED) == State.STARTED;
  }

  public boolean isLatent() {
    return state.get() == State.LATENT;
  }

  public boolean isStarted() {
    return state.get() == State.STARTED;
  }

  public boolean isClosed() {
    return state.get() == State.CLOSED;
  }

  public void checkStarted() {
    if (!isStarted()) {
      throw new IllegalStateException(what + " is not started (state: " + state.get() + ")");
    }
  }
}
