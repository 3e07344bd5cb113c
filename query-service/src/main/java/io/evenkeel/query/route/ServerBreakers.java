package io.evenkeel.query.route;

import io.evenkeel.router.placement.ShardAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A circuit breaker per shard server: a server whose last {@link #FAILURES_TO_OPEN} calls all timed out or found it
 * unreachable is not called for {@link #OPEN_MS}; its shards fail at once instead of holding a query (and its slot)
 * for the whole deadline. Then one call at a time probes it (half open): an answer closes the breaker, a failure opens
 * it again. So a stalled server that keeps its ZooKeeper session costs the queries that need it a fast failure (or a
 * partial answer), and queries of tenants on other servers keep their slots. Thread-safe.
 */
final class ServerBreakers {
  static final int FAILURES_TO_OPEN = 3;
  static final long OPEN_MS = 5_000;

  private final LongSupplier clockMs;
  private final Map<ShardAddress, Breaker> breakers = new ConcurrentHashMap<>();

  ServerBreakers(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /** Why {@code server} is not to be called now, or null when it may be (a half-open breaker lets one call in). */
  String refusal(ShardAddress server) {
    Breaker breaker = breakers.get(server);
    return breaker == null ? null : breaker.refusal(clockMs.getAsLong());
  }

  /** The server answered: its breaker closes. */
  void answered(ShardAddress server) {
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
    breakers.computeIfAbsent(server, s -> new Breaker()).failed(clockMs.getAsLong());
  }

  private static final class Breaker {
    private int failures;
    private long openUntil;
    private boolean probing;

    synchronized String refusal(long now) {
      if (failures < FAILURES_TO_OPEN) {
        return null;
      }
      if (now < openUntil || probing) {
        return "the server's last " + failures + " calls timed out or found it unreachable; it is not called for "
            + OPEN_MS / 1_000 + " s after that, then one call at a time until one is answered";
      }
      probing = true;
      return null;
    }

    synchronized void released() {
      probing = false;
    }

    synchronized void failed(long now) {
      failures++;
      probing = false;
      if (failures >= FAILURES_TO_OPEN) {
        openUntil = now + OPEN_MS;
      }
    }
  }
}
