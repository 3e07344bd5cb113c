package io.evenkeel.benchmarks.experiments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.evenkeel.benchmarks.peer.EvenkeelPeer.ShardDocs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardSpreadTest {
  /** Four shards, 0 and 1 on server a, 2 and 3 on b, with these documents. */
  private static List<ShardDocs> docs(long... counts) {
    List<ShardDocs> docs = new ArrayList<>();
    for (int shard = 0; shard < counts.length; shard++) {
      docs.add(new ShardDocs(shard, shard < 2 ? "a" : "b", counts[shard]));
    }
    return docs;
  }

  @Test
  void throughputCountsOnlyTheMeasuredPartAndSizesTheWholeReplay() {
    ShardSpread spread = ShardSpread.of(docs(1_000, 1_000, 1_000, 1_000), docs(1_500, 1_100, 1_100, 1_100),
        docs(1_600, 1_200, 1_200, 1_200), docs(1_700, 1_200, 1_250, 1_200));
    // Measured part: 100 on every shard, so even though the warm-up was not; servers 200 and 200.
    assertThat(spread.shardThroughputSpread()).isZero();
    assertThat(spread.serverThroughputSpread()).isZero();
    // The replay's rows: 700, 200, 250, 200.
    assertThat(spread.shardSizeMaxOverMin()).isCloseTo(3.5, within(1e-9));
  }

  @Test
  void oneHotShardSpreadsShardsMoreThanServers() {
    ShardSpread spread = ShardSpread.of(docs(0, 0, 0, 0), docs(0, 0, 0, 0), docs(400, 0, 200, 200),
        docs(400, 0, 200, 200));
    // Shards 400, 0, 200, 200: mean 200, deviation sqrt((40,000 + 40,000) / 4) = 141.4; servers 400 and 400.
    assertThat(spread.shardThroughputSpread()).isCloseTo(Math.sqrt(20_000) / 200, within(1e-9));
    assertThat(spread.serverThroughputSpread()).isZero();
    assertThat(spread.shardSizeMaxOverMin()).as("an empty shard counts as one row").isEqualTo(400);
  }

  @Test
  void aSnapshotMissingAShardIsRefused() {
    assertThatThrownBy(() -> ShardSpread.of(docs(1, 1, 1, 1), docs(1, 1, 1), docs(1, 1, 1, 1), docs(1, 1, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
