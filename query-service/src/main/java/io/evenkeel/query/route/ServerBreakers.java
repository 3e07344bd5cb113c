package io.evenkeel.query.route;

import io.evenkeel.cluster.placement.ShardAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A circuit breaker per shard server, for a server that has stopped answering (stalled, say, yet holding its
 * ZooKeeper session): once its last {@link #FAILURES_TO_OPEN} calls timed out or found it unreachable and it has
 * answered no call at all for {@link #SILENCE_MS}, it is not called for {@link #OPEN_MS}; its shards fail at once
 * instead of holding a query (and its slot) for the whole deadline. Then one call at a time probes it (half open):
 * an answer closes the breaker, a failure opens it again. A server that is only busy keeps answering some calls
 * (it stops its searches before their deadline and says so), so it is never cut off for being slow: that would fail
 * every tenant's queries on it for the load some of them make. Thread-safe.
 */
final class ServerBreakers {
  static final int FAILURES_TO_OPEN = 3;
  static final long SILENCE_MS = 10_000;
  static final long OPEN_MS = 5_000;

  private final LongSupplier clockMs;
  private final long startedMs;
  private final Map<ShardAddress, Breaker> breakers = new ConcurrentHashMap<>();
  private final Map<ShardAddress, Long> lastAnswered = new ConcurrentHashMap<>();

  ServerBreakers(LongSupplier clockMs) {
    this.clockMs = clockMs;
    this.startedMs = clockMs.getAsLong();
  }

  /** Why {@code server} is not to be called now, or null when it may be (a half-open breaker lets one call in). */
  String refusal(ShardAddress server) {
    Breaker breaker = breakers.get(server);
    return breaker == null ? null : breaker.refusal(clockMs.getAsLong());
  }

  /** Now, on the breakers' clock. */
  long nowMs() {
    return clockMs.getAsLong();
  }

  /** Whether {@code server} answered a call after {@code sinceMs} (on the breakers' clock). */
  boolean answeredSince(ShardAddress server, long sinceMs) {
    return lastAnswered.getOrDefault(server, Long.MIN_VALUE) > sinceMs;
  }

  /** The server answered a call (even with an error): it is alive, and its breaker closes. */
  void answered(ShardAddress server) {
    lastAnswered.put(server, clockMs.getAsLong());
    breakers.remove(server);
  }

  /** A call ended without saying anything of the server (the caller cancelled it): a probe may be sent again. */
  void released(ShardAddress server) {
    Breaker breaker = breakers.get(server);
    if (breaker != null) {
      breaker.released();
    }
  }

  /** A call to the server timed out or found it unreachable. */
  void failed(ShardAddress server) {
    long now = clockMs.getAsLong();
    long silentMs = now - lastAnswered.getOrDefault(server, startedMs);
    breakers.computeIfAbsent(server, s -> new Breaker()).failed(now, silentMs);
  }

  private static final class Breaker {
    private int failures;
    private long openUntil = Long.MIN_VALUE;
    private boolean probing;

    synchronized String refusal(long now) {
      if (openUntil == Long.MIN_VALUE) {
        return null;
      }
      if (now < openUntil || probing) {
        return "the server answered no call for " + SILENCE_MS / 1_000 + " s and its last " + failures
            + " calls timed out or found it unreachable; it is not called for " + OPEN_MS / 1_000
            + " s after that, then one call at a time until one is answered";
      }
      probing = true;
      return null;
    }

    synchronized void released() {
      probing = false;
    }

    synchronized void failed(long now, long silentMs) {
      failures++;
      probing = false;
      if (failures >= FAILURES_TO_OPEN && silentMs >= SILENCE_MS) {
        openUntil = now + OPEN_MS;
      }
    }
  }
}
