package io.evenkeel.benchmarks.trace;

import io.evenkeel.workload.ZipfTenants;
import org.apache.commons.rng.simple.RandomSource;

/**
 * An insert-only stream of writes: write i is row {@code rowIds[i]} of tenant {@code tenants[i]}, created at
 * {@code createdTimes[i]} = i ms. Arrays, not objects, so millions of writes replay without garbage.
 */
public record WriteTrace(long[] tenants, long[] rowIds, long[] createdTimes, ZipfTenants popularity) {
  /** {@code writes} writes over {@code tenants} tenants with Zipf(θ) skew; the same seed gives the same trace. */
  public static WriteTrace zipf(int writes, int tenants, double theta, long seed) {
    ZipfTenants popularity = new ZipfTenants(RandomSource.XO_RO_SHI_RO_128_PP.create(seed), tenants, theta);
    long[] tenantOf = new long[writes];
    long[] rowOf = new long[writes];
    long[] createdAt = new long[writes];
    long[] nextRow = new long[tenants];
    for (int i = 0; i < writes; i++) {
      long tenant = popularity.next();
      tenantOf[i] = tenant;
      rowOf[i] = nextRow[(int) tenant]++;
      createdAt[i] = i;
    }
    return new WriteTrace(tenantOf, rowOf, createdAt, popularity);
  }

  public int size() {
    return tenants.length;
  }
}
