package io.evenkeel.router.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.RoutingRule;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleListTest {
  @Test
  void tenantsNoRuleNamesUseOneShard() {
    RuleList rules = RuleList.of(16, List.of(Rule.grow(100, 8, 1)));
    assertThat(rules.offsetSizeFor(2, 500)).isEqualTo(1);
    assertThat(rules.maxOffsetSize(2)).isEqualTo(1);
  }

  @Test
  void largestOffsetSizeInForceWinsAsInEsdb() {
    RuleList rules = RuleList.of(16, List.of(
        Rule.grow(100, 4, 7),
        Rule.grow(200, 16, 7),
        Rule.grow(300, 2, 7, 8)));
    assertThat(rules.offsetSizeFor(7, 99)).isEqualTo(1);
    assertThat(rules.offsetSizeFor(7, 100)).isEqualTo(4);
    assertThat(rules.offsetSizeFor(7, 250)).isEqualTo(16);
    // A later grow rule with a smaller L does not shrink the tenant.
    assertThat(rules.offsetSizeFor(7, 400)).isEqualTo(16);
    assertThat(rules.offsetSizeFor(8, 400)).isEqualTo(2);
  }

  @Test
  void coolDownShrinksNewRowsButQueriesStillCoverOlderOnes() {
    RuleList rules = RuleList.of(16, List.of(Rule.grow(100, 8, 7), Rule.coolDown(500, 2, 7)));
    assertThat(rules.offsetSizeFor(7, 300)).isEqualTo(8);
    assertThat(rules.offsetSizeFor(7, 600)).isEqualTo(2);
    assertThat(rules.maxOffsetSizeBetween(7, 600, 900)).isEqualTo(2);
    assertThat(rules.maxOffsetSizeBetween(7, 300, 900)).isEqualTo(8);
    assertThat(rules.maxOffsetSizeBetween(7, 0, 99)).isEqualTo(1);
  }

  @Test
  void queryIntervalCountsOnlyRulesInForceOverIt() {
    RuleList rules = RuleList.of(16, List.of(Rule.grow(100, 4, 7), Rule.grow(200, 16, 7)));
    assertThat(rules.maxOffsetSizeBetween(7, 0, 50)).isEqualTo(1);
    assertThat(rules.maxOffsetSizeBetween(7, 0, 100)).isEqualTo(4);
    assertThat(rules.maxOffsetSizeBetween(7, 150, 199)).isEqualTo(4);
    assertThat(rules.maxOffsetSizeBetween(7, 150, 200)).isEqualTo(16);
    assertThat(rules.maxOffsetSize(7)).isEqualTo(16);
    assertThatThrownBy(() -> rules.maxOffsetSizeBetween(7, 10, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("time interval is empty: from 10 > to 5");
  }

  @Test
  void appendLeavesTheOriginalUntouched() {
    RuleList before = RuleList.of(8, List.of(Rule.grow(100, 2, 1)));
    RuleList after = before.append(Rule.grow(200, 8, 1));
    assertThat(before.size()).isEqualTo(1);
    assertThat(before.offsetSizeFor(1, 300)).isEqualTo(2);
    assertThat(after.offsetSizeFor(1, 300)).isEqualTo(8);
    assertThat(after.rules()).containsExactly(Rule.grow(100, 2, 1), Rule.grow(200, 8, 1));
    assertThatThrownBy(() -> after.rules().add(Rule.grow(300, 2, 1))).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void malformedRulesAreRejectedWithTheValueAndTheRange() {
    assertThatThrownBy(() -> Rule.grow(100, 12, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset size L must be a power of two; got: 12");
    assertThatThrownBy(() -> Rule.grow(100, 0, 1))
        .hasMessage("offset size L must be a power of two; got: 0");
    assertThatThrownBy(() -> RuleList.empty(12).append(Rule.grow(100, 16, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset size L must be a power of two in [1, 8] for 12 shards; got: 16");
    RuleList list = RuleList.of(12, List.of(Rule.grow(2_000, 4, 1)));
    assertThatThrownBy(() -> list.append(Rule.grow(1_000, 4, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the rule list is append-only: a rule effective at 1000 is older than the newest rule, "
            + "effective at 2000");
    assertThatThrownBy(() -> Rule.grow(100, 4))
        .hasMessage("a rule must name at least one tenant");
    assertThatThrownBy(() -> RuleList.empty(0)).hasMessage("the number of shards must be >= 1; got: 0");
  }

  @Test
  void ruleTravelsAsAvroAndTenantsAreCopiedIn() throws Exception {
    long[] tenants = {9, 3, 3, 5};
    Rule rule = Rule.coolDown(1_000, 4, tenants);
    tenants[0] = 42;
    assertThat(rule.tenants()).containsExactly(3, 5, 9);
    SingleObjectCodec<RoutingRule> codec = SingleObjectCodec.of(RoutingRule.class);
    assertThat(Rule.fromAvro(codec.decode(codec.encode(rule.toAvro())))).isEqualTo(rule);
  }
}
