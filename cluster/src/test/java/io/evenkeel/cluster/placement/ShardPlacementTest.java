package io.evenkeel.cluster.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardPlacementTest {
  @Test
  void fixedPlacementMapsEveryShardToItsServer() {
    ShardPlacement placement = ShardPlacement.fixed(12, "127.0.0.1:7001=0-5,127.0.0.1:7002=6-10,11");
    assertThat(placement.primaryOf(0)).contains(new ShardAddress("127.0.0.1", 7001));
    assertThat(placement.primaryOf(11)).contains(new ShardAddress("127.0.0.1", 7002));
    assertThat(placement.primaries()).hasSize(12);
  }

  @Test
  void badSpecsNameTheProblem() {
    assertThatThrownBy(() -> ShardPlacement.fixed(4, "127.0.0.1:7001=0-4"))
        .hasMessage("shard 4 is outside [0, 3]");
    assertThatThrownBy(() -> ShardPlacement.fixed(4, "127.0.0.1:7001=0-1,127.0.0.1:7002=1"))
        .hasMessage("shard 1 is placed on both 127.0.0.1:7001 and 127.0.0.1:7002");
    assertThatThrownBy(() -> ShardPlacement.fixed(4, "localhost=0"))
        .hasMessage("a shard server address is host:port; got: 'localhost'");
  }
}
