package io.evenkeel.router.hashing;

import net.openhft.hashing.LongHashFunction;

/**
 * A 64-bit hash of a routing key (a tenant id or a row id).
 *
 * <p>NOTE: the functions and seeds of {@link #tenant()} and {@link #row()} decide where every stored row lives; changing
 * either moves data, so they are part of the on-disk contract, like the rule list.
 */
@FunctionalInterface
public interface KeyHash {
  /** Seed of h1; any fixed value works, it only has to differ from {@link #ROW_SEED} to keep h1 and h2 independent. */
  long TENANT_SEED = 0x45_76_65_6E_6B_65_65_6CL; // "Evenkeel"

  /** Seed of h2. */
  long ROW_SEED = 0x52_6F_77_49_64_48_32_21L; // "RowIdH2!"

  long hash(long key);

  /** h1: the hash of the tenant, which picks the first of the tenant's consecutive shards. */
  static KeyHash tenant() {
    return xxh3(TENANT_SEED);
  }

  /** h2: the hash of the row, which picks the offset within the tenant's L shards. */
  static KeyHash row() {
    return xxh3(ROW_SEED);
  }

  /** XXH3 (64-bit) with a seed, from OpenHFT's zero-allocation-hashing: fast, allocation-free, well distributed. */
  static KeyHash xxh3(long seed) {
    LongHashFunction function = LongHashFunction.xx3(seed);
    return function::hashLong;
  }
}
