package io.evenkeel.query.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.schemas.ShardCopies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the console's cluster view says of copies it cannot ask: no call is made to a server that is not live. */
class ClusterOverviewTest {
  @Test
  void aShardWithoutPrimaryAndADeadReplicaSayWhy() {
    ShardCopies orphan = ShardCopies.newBuilder().setShard(3).setPrimary(null).setTerm(4)
        .setReplicas(List.of("127.0.0.1:1")).setInSync(List.of("127.0.0.1:1")).build();
    try (ClusterOverview overview = new ClusterOverview(
        () -> new ClusterState(Map.of(), Map.of(3, orphan), Map.of()), null)) {
      ClusterOverview.Snapshot snapshot = overview.snapshot();
      assertThat(snapshot.servers()).isEmpty();
      assertThat(snapshot.shards()).singleElement().satisfies(shard -> {
        assertThat(shard.term()).isEqualTo(4);
        assertThat(shard.copies()).extracting(ClusterOverview.Copy::server, ClusterOverview.Copy::role,
                ClusterOverview.Copy::error)
            .containsExactly(
                tuple("-", "primary",
                    "no primary: writes to this shard wait until a replica in sync is promoted"),
                tuple("127.0.0.1:1", "replica", "the server is not live"));
      });
    }
  }
}
