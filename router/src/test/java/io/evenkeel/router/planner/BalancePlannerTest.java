package io.evenkeel.router.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BalancePlannerTest {
  private final BalancePlanner planner = BalancePlanner.builder(12).build();

  @Test
  void hotMeansMoreThanAQuarterOfAnAverageShardByDefault() {
    assertThat(planner.hotShareThreshold()).isEqualTo(0.25 / 12);
    assertThat(planner.checkHotSpot(0.02)).isFalse();
    assertThat(planner.checkHotSpot(0.025)).isTrue();
  }

  @Test
  void offsetSizeIsTheSmallestPowerOfTwoUnderTheThresholdCappedAtN() {
    assertThat(planner.computeOffsetSize(0.01)).isEqualTo(1);
    assertThat(planner.computeOffsetSize(0.03)).isEqualTo(2);
    assertThat(planner.computeOffsetSize(0.05)).isEqualTo(4);
    assertThat(planner.computeOffsetSize(0.10)).isEqualTo(8);
    assertThat(planner.computeOffsetSize(0.30)).isEqualTo(8);
    assertThat(planner.computeOffsetSize(1.0)).isEqualTo(8);
    BalancePlanner capped = BalancePlanner.builder(64).maxOffsetSize(16).maxTenantShareOfShard(1.0).build();
    assertThat(capped.computeOffsetSize(1.0)).isEqualTo(16);
    assertThat(capped.computeOffsetSize(0.05)).isEqualTo(4);
  }

  @Test
  void initialRulesComeFromStorageShares() {
    Map<Long, Long> storage = Map.of(1L, 500L, 2L, 40L, 3L, 40L, 4L, 5L, 5L, 415L);
    List<Rule> rules = planner.initialRules(storage, 0);
    assertThat(rules).containsExactly(Rule.grow(0, 2, 2, 3), Rule.grow(0, 8, 1, 5));
    RuleList list = RuleList.of(12, rules);
    assertThat(list.offsetSizeFor(4, 0)).isEqualTo(1);
    assertThat(list.offsetSizeFor(1, 10)).isEqualTo(8);
  }

  @Test
  void aRoundProposesOnlyTenantsThatNeedMoreThanTheyHave() {
    RuleList current = RuleList.of(12, List.of(Rule.grow(0, 8, 1)));
    Map<Long, Long> writes = Map.of(1L, 500L, 2L, 150L, 3L, 30L, 4L, 320L);
    List<OffsetSizeProposal> proposals = planner.plan(writes, current, 1_000);
    assertThat(proposals).extracting(OffsetSizeProposal::tenant).containsExactly(4L, 2L, 3L);
    assertThat(proposals.get(0).proposedOffsetSize()).isEqualTo(8);
    assertThat(proposals.get(1).currentOffsetSize()).isEqualTo(1);
    assertThat(proposals.get(1).proposedOffsetSize()).isEqualTo(8);
    assertThat(proposals.get(1).reason()).startsWith("share 0.1500 > hot threshold 0.0208");
    assertThat(proposals.get(2).proposedOffsetSize()).isEqualTo(2);
  }

  @Test
  void badSettingsAndSharesAreRejected() {
    assertThatThrownBy(() -> BalancePlanner.builder(12).maxTenantShareOfShard(0).build())
        .hasMessage("maxTenantShareOfShard must be in (0, 1]; got: 0.0");
    assertThatThrownBy(() -> BalancePlanner.builder(12).maxOffsetSize(16).build())
        .hasMessage("maxOffsetSize must be a power of two in [1, 8] for 12 shards; got: 16");
    assertThatThrownBy(() -> planner.checkHotSpot(1.5)).hasMessage("a share must be in [0, 1]; got: 1.5");
    assertThatThrownBy(() -> planner.plan(Map.of(1L, -1L), RuleList.empty(12), 0))
        .hasMessage("counts must be >= 0; got: -1");
  }
}
