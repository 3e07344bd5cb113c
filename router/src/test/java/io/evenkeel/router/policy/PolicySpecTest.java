package io.evenkeel.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PolicySpecTest {
  @Test
  void readsTheThreeFormsAndWritesThemBack() {
    for (String text : new String[] {"hashing", "double:8", "dynamic"}) {
      assertThat(PolicySpec.parse(text).toString()).isEqualTo(text);
    }
    assertThat(PolicySpec.parse("double:4").fixedPolicy(12).shardsFor(7).size()).isEqualTo(4);
    assertThat(PolicySpec.parse("hashing").fixedPolicy(12).shardsFor(7).size()).isEqualTo(1);
    assertThat(PolicySpec.parse("dynamic").dynamic()).isTrue();
  }

  @Test
  void refusesAnythingElseNamingTheForms() {
    for (String text : new String[] {"", "double", "double:", "double:0", "double:-2", "double:x", "Dynamic",
        "double:99999999999"}) {
      assertThatThrownBy(() -> PolicySpec.parse(text)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the routing policy is hashing, double:L (L a whole number >= 1) or dynamic; got: '" + text + "'");
    }
    assertThatThrownBy(() -> PolicySpec.parse("dynamic").fixedPolicy(12)).isInstanceOf(IllegalStateException.class);
  }
}
