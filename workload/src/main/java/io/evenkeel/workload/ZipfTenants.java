package io.evenkeel.workload;

import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.PermutationSampler;
import org.apache.commons.rng.sampling.distribution.DiscreteSampler;
import org.apache.commons.rng.sampling.distribution.DiscreteUniformSampler;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;

/**
 * Draws tenant ids with Zipf(θ)-skewed popularity: rank r (1 = hottest) is drawn with probability proportional to
 * 1/r^θ; θ = 0 is uniform. Ranks map to tenant ids through a random permutation so that hot tenants are not
 * neighbours in id space; {@link #remap} draws a new permutation, which moves the hotspots [ESDB fig. 14].
 */
public final class ZipfTenants {
  private final UniformRandomProvider random;
  private final int tenants;
  private final double theta;
  private final DiscreteSampler ranks;
  private int[] tenantOfRank;

  public ZipfTenants(UniformRandomProvider random, int tenants, double theta) {
    if (tenants < 1) {
      throw new IllegalArgumentException("tenants must be >= 1; got: " + tenants);
    }
    if (!(theta >= 0)) {
      throw new IllegalArgumentException("theta must be >= 0; got: " + theta);
    }
    this.random = random;
    this.tenants = tenants;
    this.theta = theta;
    this.ranks = theta == 0
        ? DiscreteUniformSampler.of(random, 1, tenants)
        : RejectionInversionZipfSampler.of(random, tenants, theta);
    remap();
  }

  /** The next tenant id, in [0, tenants). */
  public long next() {
    return tenantOfRank[ranks.sample() - 1];
  }

  /** The tenant id at popularity rank {@code rank} (1 = hottest). */
  public long tenantAtRank(int rank) {
    return tenantOfRank[rank - 1];
  }

  /** The expected share of all draws that rank {@code rank} gets. */
  public double expectedShare(int rank) {
    double norm = 0;
    for (int r = 1; r <= tenants; r++) {
      norm += Math.pow(r, -theta);
    }
    return Math.pow(rank, -theta) / norm;
  }

  /** Assigns the popularity ranks to tenants anew: yesterday's small tenants may be today's hotspots. */
  public void remap() {
    tenantOfRank = PermutationSampler.natural(tenants);
    PermutationSampler.shuffle(random, tenantOfRank);
  }

  public int tenants() {
    return tenants;
  }
}
