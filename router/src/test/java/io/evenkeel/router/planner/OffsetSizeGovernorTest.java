package io.evenkeel.router.planner;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class OffsetSizeGovernorTest {
  private static final int SHARDS = 8;
  private static final long WINDOW_MS = 10_000;
  private static final ShardFormula FORMULA = ShardFormula.standard(SHARDS);
  /** A tenant whose range starts on the last shard, so that its wider ranges wrap around to shard 0. */
  private static final long TENANT = LongStream.range(0, 1_000).filter(t -> FORMULA.baseShard(t) == SHARDS - 1)
      .findFirst().orElseThrow();
  /** α = 0.25 over 8 shards: a tenant above 3.125% of all writes is hot. */
  private static final BalancePlanner PLANNER = BalancePlanner.builder(SHARDS).build();
  private static final double HOT = PLANNER.hotShareThreshold();
  private static final OffsetSizeGovernor.Settings DAMPED = OffsetSizeGovernor.Settings.DEFAULT;
  private static final int COOL_DOWN_WINDOWS = (int) (DAMPED.coolDownMs() / WINDOW_MS);

  /**
   * A cluster driven window by window: the tenant writes {@code share} of all writes, spread over the shards its
   * rules give; the rest is spread evenly, and two small tenants are listed beside it. A proposal becomes a rule,
   * effective at once, {@code commitDelay} windows after it was made (0: at the end of its window).
   */
  private static final class Cluster {
    final OffsetSizeGovernor governor;
    final int commitDelay;
    final Map<Long, TenantTrend> trends = new HashMap<>();
    final List<OffsetSizeProposal> proposals = new ArrayList<>();
    final List<Integer> proposedAtWindow = new ArrayList<>();
    RuleList rules = RuleList.empty(SHARDS);
    /** Listed tenants other than {@link #TENANT}, with their writes per window. */
    Map<Long, Long> others = Map.of(1L, 1_000L, 2L, 500L);

    Cluster(OffsetSizeGovernor.Settings settings, int commitDelay) {
      this.governor = new OffsetSizeGovernor(PLANNER, FORMULA, settings);
      this.commitDelay = commitDelay;
    }

    Cluster(OffsetSizeGovernor.Settings settings) {
      this(settings, 0);
    }

    void run(int windows, IntToDoubleFunction share) {
      for (int w = 0; w < windows; w++) {
        window(w, share.applyAsDouble(w), new long[0]);
      }
    }

    List<OffsetSizeProposal> window(int w, double share, long[] extraShardWrites) {
      for (int i = 0; i < proposals.size(); i++) {
        if (proposedAtWindow.get(i) + commitDelay == w - 1) {
          rules = rules.append(proposals.get(i).rule(w * WINDOW_MS));
        }
      }
      long total = 1_000_000;
      long tenantWrites = Math.round(share * total);
      long[] shardWrites = new long[SHARDS];
      for (int shard = 0; shard < SHARDS; shard++) {
        shardWrites[shard] = (total - tenantWrites) / SHARDS
            + (shard < extraShardWrites.length ? extraShardWrites[shard] : 0);
      }
      int offsetSize = rules.offsetSizeFor(TENANT, Long.MAX_VALUE);
      for (int i = 0; i < offsetSize; i++) {
        shardWrites[(FORMULA.baseShard(TENANT) + i) % SHARDS] += tenantWrites / offsetSize;
      }
      Map<Long, Long> listed = new HashMap<>(others);
      if (tenantWrites > 0) {
        listed.put(TENANT, tenantWrites);
      }
      long start = w * WINDOW_MS;
      List<OffsetSizeProposal> made = governor.decide(new WindowLoad(start, start + WINDOW_MS, listed, total,
          shardWrites), rules, trends);
      for (OffsetSizeProposal proposal : made) {
        proposals.add(proposal);
        proposedAtWindow.add(w);
      }
      return made;
    }

    int offsetSize() {
      return rules.offsetSizeFor(TENANT, Long.MAX_VALUE);
    }
  }

  @Test
  void aTenantHotInTwoWindowsInARowIsWidenedOnceWhileItStaysHot() {
    Cluster cluster = new Cluster(DAMPED);
    cluster.run(30, w -> w == 0 || w >= 3 ? 0.2 : 0.001);
    assertThat(cluster.proposals).hasSize(1);
    assertThat(cluster.proposedAtWindow).containsExactly(4);
    // 20% over 8 shards is 2.5% each, under the 3.125% threshold.
    assertThat(cluster.offsetSize()).isEqualTo(8);
    assertThat(cluster.proposals.get(0).reason()).contains("L 1 -> 8");
  }

  @Test
  void aTenantWhoseRuleIsNotCommittedYetIsNotProposedAgainWithinTheRest() {
    // Its rule comes 8 windows after the proposal: the rest (6 windows) holds one retry back, not more.
    Cluster cluster = new Cluster(DAMPED, 8);
    cluster.run(20, w -> 0.2);
    assertThat(cluster.proposedAtWindow).containsExactly(1, 7);
    assertThat(cluster.offsetSize()).isEqualTo(8);
  }

  @Test
  void aWidenedTenantIsNarrowedOnlyAfterStayingCoolForTheCoolDownToTheLThatKeepsItInTheBand() {
    Cluster cluster = new Cluster(DAMPED);
    // Hot for 10 windows, then 5% of the writes: L = 2 would put 2.5% on each shard, within the threshold, but only
    // L = 4 keeps it within half of it (1.5625%).
    cluster.run(60, w -> w < 10 ? 0.2 : 0.05);
    assertThat(cluster.proposals).extracting(OffsetSizeProposal::proposedOffsetSize).containsExactly(8, 4);
    assertThat(cluster.proposals.get(1).coolDown()).isTrue();
    // Cool from window 10's start: the cool-down later is the end of window 10 + COOL_DOWN_WINDOWS - 1.
    assertThat(cluster.proposedAtWindow).containsExactly(1, 9 + COOL_DOWN_WINDOWS);
    assertThat(cluster.rules.rules().get(1)).isEqualTo(Rule.coolDown((10 + COOL_DOWN_WINDOWS) * WINDOW_MS, 4,
        TENANT));
  }

  @Test
  void aCoolDownIsProposedAgainAfterTheRestWhenItsRuleDoesNotCome() {
    Cluster cluster = new Cluster(DAMPED, 1_000);
    cluster.rules = RuleList.of(SHARDS, List.of(Rule.grow(0, 8, TENANT)));
    cluster.run(COOL_DOWN_WINDOWS + 12, w -> 0.001);
    assertThat(cluster.proposedAtWindow).containsExactly(COOL_DOWN_WINDOWS - 1, COOL_DOWN_WINDOWS + 5,
        COOL_DOWN_WINDOWS + 11);
    assertThat(cluster.proposals).allMatch(OffsetSizeProposal::coolDown);
  }

  @Test
  void swingsShorterThanTheCoolDownChangeTheRulesOnceAndLongerOnesTwiceASwing() {
    for (int halfPeriod : new int[] {1, 2, 3, 5, COOL_DOWN_WINDOWS - 1, COOL_DOWN_WINDOWS + 4, 60}) {
      Cluster cluster = new Cluster(DAMPED);
      // An hour between 20 times the hot threshold and a twentieth of it.
      cluster.run(360, w -> (w / halfPeriod) % 2 == 0 ? 20 * HOT : HOT / 20);
      int swings = (360 + 2 * halfPeriod - 1) / (2 * halfPeriod);
      int bound = halfPeriod < COOL_DOWN_WINDOWS ? 1 : 2 * swings;
      assertThat(cluster.proposals).as("rule changes in an hour of swings of half-period %d windows: %s",
          halfPeriod, cluster.proposals).hasSizeBetween(halfPeriod == 1 ? 0 : 1, bound);
    }
  }

  @Test
  void aSquareWaveAroundTheThresholdChangesTheRulesAtMostOnceAnHourWhateverItsPeriod() {
    for (int halfPeriod : new int[] {1, 2, 3, 4, 6, 10, 20, 60}) {
      Cluster cluster = new Cluster(DAMPED);
      cluster.run(360, w -> (w / halfPeriod) % 2 == 0 ? 1.3 * HOT : 0.7 * HOT);
      assertThat(cluster.proposals).as("rule changes in an hour of a square wave of half-period %d windows: %s",
          halfPeriod, cluster.proposals).hasSizeLessThanOrEqualTo(1);
    }
  }

  @Test
  void withoutTheHysteresisBandTheSameSlowSquareWaveFlaps() {
    // The band is what holds: widening at 1.3x and narrowing as soon as L = 1 would do again flaps every period.
    Cluster cluster = new Cluster(new OffsetSizeGovernor.Settings(2, 60_000, 60_000, 1.0, 0.05));
    cluster.run(360, w -> (w / 20) % 2 == 0 ? 1.3 * HOT : 0.7 * HOT);
    assertThat(cluster.proposals).hasSizeGreaterThan(10);
  }

  @Test
  void aWideningThatWouldNotCoolTheHottestShardItTouchesIsNotProposed() {
    Cluster cluster = new Cluster(DAMPED);
    // The tenant's range starts on the last shard: L = 2 wraps to shard 0, which already carries far more than
    // the tenant's own 4% (which needs L = 2). No gain, no proposal.
    long[] loadOnShardZero = new long[SHARDS];
    loadOnShardZero[0] = 400_000;
    for (int w = 0; w < 10; w++) {
      assertThat(cluster.window(w, 0.04, loadOnShardZero)).isEmpty();
    }
    // Without that load the same tenant is widened.
    assertThat(cluster.window(10, 0.04, new long[0])).extracting(OffsetSizeProposal::proposedOffsetSize)
        .containsExactly(2);
  }

  @Test
  void aWidenedTenantTheMonitorNoLongerListsIsNarrowed() {
    Cluster cluster = new Cluster(DAMPED);
    // Silent after window 5: its share is taken as the least listed one (0.05%), well within the band at L = 1.
    cluster.run(COOL_DOWN_WINDOWS + 15, w -> w < 5 ? 0.2 : 0);
    assertThat(cluster.proposals).extracting(OffsetSizeProposal::proposedOffsetSize).containsExactly(8, 1);
    assertThat(cluster.trends).isEmpty();
  }

  @Test
  void anUnlistedTenantIsNeverWidenedOnTheBoundOfItsShare() {
    Cluster cluster = new Cluster(DAMPED);
    cluster.rules = RuleList.of(SHARDS, List.of(Rule.grow(0, 2, TENANT)));
    // Every listed tenant is hot: an unlisted one may have written as much, or nothing.
    cluster.others = Map.of(1L, 100_000L, 2L, 90_000L);
    cluster.run(COOL_DOWN_WINDOWS * 3, w -> 0);
    assertThat(cluster.proposals).noneMatch(p -> p.tenant() == TENANT);
    assertThat(cluster.offsetSize()).isEqualTo(2);
  }

  @Test
  void tenantsRoutedByATableAreLeftAlone() {
    Cluster cluster = new Cluster(DAMPED);
    cluster.rules = RuleList.of(SHARDS, List.of(Rule.table(0, ShardTable.of(new int[] {1, 2},
        new double[] {0.5, 0.5}), TENANT)));
    cluster.run(10, w -> 0.3);
    assertThat(cluster.proposals).isEmpty();
  }
}
