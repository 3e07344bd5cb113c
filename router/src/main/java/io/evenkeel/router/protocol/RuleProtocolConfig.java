package io.evenkeel.router.protocol;

import io.evenkeel.router.protocol.internal.Layout;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.zookeeper.common.PathUtils;

/**
 * What every process of one cluster must agree on to take part in the rule commit protocol. Build with {@link
 * #builder}; {@link Builder#build} checks every setting.
 *
 * <p>The effective delay T separates a rule's publication from the time it takes effect: the master sets {@code t =
 * now + T} and waits up to T/2 for votes. T must be far larger than a ZooKeeper round trip and the clocks' skew, and
 * far smaller than the balancing period. The clock-skew bound is what a participant trusts the writers' clocks to:
 * it routes no row created more than that ahead of its own clock (such a row stays pending), so every row it routed
 * before it was cut off is older than any effective time published afterwards.
 */
public final class RuleProtocolConfig {
  public static final Duration DEFAULT_EFFECTIVE_DELAY = Duration.ofSeconds(10);
  public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(1);

  private final Layout layout;
  private final int numShards;
  private final long effectiveDelayMs;
  private final long maxClockSkewMs;
  private final LongSupplier clock;

  private RuleProtocolConfig(Builder builder) {
    this.layout = new Layout(builder.root);
    this.numShards = builder.numShards;
    this.effectiveDelayMs = builder.effectiveDelay.toMillis();
    this.maxClockSkewMs = builder.maxClockSkew.toMillis();
    this.clock = builder.clock;
  }

  /**
   * @param root the cluster's ZooKeeper path, for example {@code /evenkeel/prod}
   * @param numShards N: the rule list checks every L against it
   */
  public static Builder builder(String root, int numShards) {
    return new Builder(root, numShards);
  }

  public String root() {
    return layout.root();
  }

  public int numShards() {
    return numShards;
  }

  /** T: a published rule takes effect T after the master's clock at publication. */
  public long effectiveDelayMs() {
    return effectiveDelayMs;
  }

  /** T/2: how long the master waits for every participant's vote. */
  public long voteTimeoutMs() {
    return effectiveDelayMs / 2;
  }

  public long maxClockSkewMs() {
    return maxClockSkewMs;
  }

  /** Epoch ms by this process's clock. */
  public long now() {
    return clock.getAsLong();
  }

  Layout layout() {
    return layout;
  }

  @Override
  public String toString() {
    return "RuleProtocolConfig(root=" + layout.root() + ", numShards=" + numShards + ", T=" + effectiveDelayMs
        + " ms, maxClockSkew=" + maxClockSkewMs + " ms)";
  }

  /** Defaults: T = 10 s, clock-skew bound 1 s, the system clock. */
  public static final class Builder {
    private final String root;
    private final int numShards;
    private Duration effectiveDelay = DEFAULT_EFFECTIVE_DELAY;
    private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;
    private LongSupplier clock = System::currentTimeMillis;

    private Builder(String root, int numShards) {
      this.root = root;
      this.numShards = numShards;
    }

    /** T, the delay from publication to the effective time; T/2 is the vote timeout. */
    public Builder effectiveDelay(Duration effectiveDelay) {
      this.effectiveDelay = effectiveDelay;
      return this;
    }

    /** The most two processes' clocks (and the writers' creation times) may differ by; below T/2. */
    public Builder maxClockSkew(Duration maxClockSkew) {
      this.maxClockSkew = maxClockSkew;
      return this;
    }

    /** Epoch ms; the system clock unless a test or a simulation supplies its own. */
    public Builder clock(LongSupplier clock) {
      this.clock = clock;
      return this;
    }

    public RuleProtocolConfig build() {
      if (root == null || !root.startsWith("/") || root.length() < 2 || root.endsWith("/")) {
        throw new IllegalArgumentException("root must be an absolute ZooKeeper path such as /evenkeel/prod; got: "
            + (root == null ? "null" : "'" + root + "'"));
      }
      try {
        PathUtils.validatePath(root);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("root must be a valid ZooKeeper path; got: '" + root + "' ("
            + e.getMessage() + ")", e);
      }
      if (numShards < 1) {
        throw new IllegalArgumentException("numShards must be >= 1; got: " + numShards);
      }
      if (effectiveDelay == null || effectiveDelay.toMillis() < 2) {
        throw new IllegalArgumentException("effectiveDelay must be at least 2 ms; got: " + effectiveDelay);
      }
      if (maxClockSkew == null || maxClockSkew.isNegative()) {
        throw new IllegalArgumentException("maxClockSkew must be >= 0; got: " + maxClockSkew);
      }
      if (maxClockSkew.toMillis() * 2 >= effectiveDelay.toMillis()) {
        throw new IllegalArgumentException("maxClockSkew must be below effectiveDelay / 2 ("
            + effectiveDelay.toMillis() / 2 + " ms), else a participant cut off from ZooKeeper may already have "
            + "routed rows created after the effective time of a round published without it; got: "
            + maxClockSkew.toMillis() + " ms");
      }
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      return new RuleProtocolConfig(this);
    }
  }
}
