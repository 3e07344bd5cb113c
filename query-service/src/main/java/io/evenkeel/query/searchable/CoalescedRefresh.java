package io.evenkeel.query.searchable;

/**
 * Refreshes of every shard shared by the callers that need one: one runs at a time, and a caller waits for the first
 * that starts after it asked (one that was already running may have missed its writes), so any number of waiting
 * producers cost at most one refresh after another, never one each.
 */
final class CoalescedRefresh {
  /** Makes every acknowledged write searchable; throws what the caller should see when it cannot. */
  private final Runnable refresh;
  /** Refreshes started; the number of the last that succeeded (a failed one is tried again by a waiter). */
  private long started;
  private long succeeded;
  private boolean running;

  CoalescedRefresh(Runnable refresh) {
    this.refresh = refresh;
  }

  /** Returns once a refresh that started after this call has finished; runs it itself when none is running. */
  void await() throws InterruptedException {
    long needed;
    synchronized (this) {
      needed = started + 1;
      while (true) {
        if (succeeded >= needed) {
          return;
        }
        if (!running) {
          running = true;
          started++;
          needed = started;
          break;
        }
        wait();
      }
    }
    boolean ok = false;
    try {
      refresh.run();
      ok = true;
    } finally {
      synchronized (this) {
        running = false;
        if (ok) {
          succeeded = needed;
        }
        notifyAll();
      }
    }
  }
}
