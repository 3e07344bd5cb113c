package io.evenkeel.query.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HotAttributePublisherTest {
  private static final HotAttributePublisher.Settings TOP_2 =
      new HotAttributePublisher.Settings(2, 10, Duration.ofSeconds(1), 3);

  @Test
  void theMostUsedKeysAtOrAboveTheMinimumMakeTheList() {
    assertThat(HotAttributePublisher.choose(Map.of("color", 50L, "size", 12L, "brand", 30L, "rare", 9L), Set.of(),
        TOP_2)).containsExactly("brand", "color");
    assertThat(HotAttributePublisher.choose(Map.of("size", 10L, "rare", 9L), Set.of(), TOP_2))
        .containsExactly("size");
    assertThat(HotAttributePublisher.choose(Map.of("a", 20L, "b", 20L, "c", 20L), Set.of(), TOP_2))
        .as("ties by key").containsExactly("a", "b");
  }

  @Test
  void aListedKeyStaysUntilItFallsBelowHalfTheMinimum() {
    assertThat(HotAttributePublisher.choose(Map.of("size", 5L, "brand", 10L), Set.of("size"), TOP_2))
        .containsExactly("brand", "size");
    assertThat(HotAttributePublisher.choose(Map.of("size", 4L, "brand", 10L), Set.of("size"), TOP_2))
        .containsExactly("brand");
    assertThat(HotAttributePublisher.choose(Map.of("size", 5L, "brand", 10L), Set.of(), TOP_2))
        .as("not listed: the full bar").containsExactly("brand");
    assertThat(HotAttributePublisher.choose(Map.of("size", 6L, "color", 40L, "brand", 30L), Set.of("size"), TOP_2))
        .as("more used keys take its place").containsExactly("brand", "color");
  }

  @Test
  void aWindowWithFewerQueriesThanTheMinimumKeepsTheList() {
    assertThat(HotAttributePublisher.choose(Map.of(), Set.of("color"), TOP_2)).containsExactly("color");
    assertThat(HotAttributePublisher.choose(Map.of("size", 9L), Set.of("color"), TOP_2)).containsExactly("color");
    assertThat(HotAttributePublisher.choose(Map.of("size", 10L), Set.of("color"), TOP_2)).containsExactly("size");
  }

  @Test
  void keysNoRowCanHoldAreLeftOut() {
    assertThat(HotAttributePublisher.choose(Map.of("a:b", 50L, "", 50L, "a;b", 50L, "ok", 50L), Set.of(), TOP_2))
        .containsExactly("ok");
  }

  /**
   * Tenant 9 floods "junk" and "spam" with 1,000 queries each; three tenants use "color" 4 times each: with each
   * party's queries counted up to the minimum (10), color stays in a list of two and tenant 9 gets one key of its own.
   */
  @Test
  void oneTenantsFloodCannotPushOutTheKeysOthersUse() {
    List<Map<String, Map<String, Long>>> intervals = List.of(
        Map.of("junk", Map.of("tenant 9", 600L), "spam", Map.of("tenant 9", 600L),
            "color", Map.of("tenant 1", 2L, "tenant 2", 2L, "tenant 3", 2L)),
        Map.of("junk", Map.of("tenant 9", 400L), "spam", Map.of("tenant 9", 400L),
            "color", Map.of("tenant 1", 2L, "tenant 2", 2L, "tenant 3", 2L)));
    Map<String, Long> weighted = HotAttributePublisher.weighted(intervals, TOP_2.minQueries());
    assertThat(weighted).isEqualTo(Map.of("junk", 10L, "spam", 10L, "color", 12L));
    assertThat(HotAttributePublisher.choose(weighted, Set.of(), TOP_2)).containsExactly("color", "junk");
  }
}
