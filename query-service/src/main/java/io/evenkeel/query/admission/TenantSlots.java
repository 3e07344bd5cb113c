package io.evenkeel.query.admission;

import io.evenkeel.query.result.QueryException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many queries one party may run at once, so that no tenant takes every query slot from the others: a party is
 * a tenant key, or for an admin key (or a service without keys) the one tenant a query names; queries that name no
 * single tenant share one party, {@link #SEVERAL_TENANTS}, with a quarter of the share: each of them asks every shard,
 * so a few at once take the shard servers' CPU from every tenant. Over its share a query gets a 429 at once. Thread-safe.
 */
public final class TenantSlots {
  /** The party of every query that names no single tenant. */
  public static final String SEVERAL_TENANTS = "over several tenants";

  private final int perParty;
  private final Map<String, Integer> running = new ConcurrentHashMap<>();

  public TenantSlots(int perParty) {
    if (perParty < 1) {
      throw new IllegalArgumentException("--max-concurrent-queries-per-tenant must be at least 1; got: " + perParty);
    }
    this.perParty = perParty;
  }

  /**
   * A slot of {@code party}'s (words that follow "queries": "of tenant 7", "of key shop7"), or a 429 naming it when
   * it runs as many queries as it may.
   */
  public Slot acquire(String party) {
    int share = party.equals(SEVERAL_TENANTS) ? Math.max(1, perParty / 4) : perParty;
    boolean[] admitted = {false};
    running.compute(party, (key, count) -> {
      int now = count == null ? 0 : count;
      admitted[0] = now < share;
      return admitted[0] ? now + 1 : now;
    });
    if (!admitted[0]) {
      throw QueryException.overloaded(share + " queries " + party + " are running, as many as may run at once"
          + " (--max-concurrent-queries-per-tenant" + (share < perParty ? ", a quarter of it for queries over several tenants"
          : "") + "); retry shortly");
    }
    return () -> running.computeIfPresent(party, (key, count) -> count == 1 ? null : count - 1);
  }

  /** The queries {@code party} runs now. */
  public int running(String party) {
    return running.getOrDefault(party, 0);
  }

  /** A held slot; closing it gives it back. */
  public interface Slot extends AutoCloseable {
    @Override
    void close();
  }
}
