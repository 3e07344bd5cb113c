package io.evenkeel.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.router.rules.RuleList;
import org.junit.jupiter.api.Test;

class PolicySpecTest {
  @Test
  void readsTheFourFormsAndWritesThemBack() {
    for (String text : new String[] {"hashing", "double:8", "dynamic", "logstore"}) {
      assertThat(PolicySpec.parse(text).toString()).isEqualTo(text);
    }
    assertThat(PolicySpec.parse("double:4").fixedPolicy(12).shardsFor(7).size()).isEqualTo(4);
    assertThat(PolicySpec.parse("hashing").fixedPolicy(12).shardsFor(7).size()).isEqualTo(1);
    assertThat(PolicySpec.parse("dynamic").byRuleList()).isTrue();
    assertThat(PolicySpec.parse("logstore").byRuleList()).isTrue();
    assertThat(PolicySpec.parse("double:8").byRuleList()).isFalse();
    assertThat(PolicySpec.parse("logstore").policy(RuleList.empty(12)).name()).isEqualTo("logstore");
  }

  @Test
  void refusesAnythingElseNamingTheForms() {
    for (String text : new String[] {"", "double", "double:", "double:0", "double:-2", "double:x", "Dynamic",
        "double:99999999999"}) {
      assertThatThrownBy(() -> PolicySpec.parse(text)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the routing policy is hashing, double:L (L a whole number >= 1), dynamic or logstore; got: '" + text + "'");
    }
    assertThatThrownBy(() -> PolicySpec.parse("dynamic").fixedPolicy(12)).isInstanceOf(IllegalStateException.class);
  }
}
