package io.evenkeel.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.ShardSet;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingPolicyTest {
  private static final int SHARDS = 32;
  private static final long TENANT = 4242;

  @Test
  void oneTenantAtEightShardsSpreadsEvenly() {
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(SHARDS, List.of(Rule.grow(0, 8, TENANT))));
    int rows = 1_000_000;
    int[] counts = new int[SHARDS];
    for (long row = 0; row < rows; row++) {
      counts[policy.shardFor(TENANT, row, 1_000)]++;
    }
    ShardSet range = policy.shardsFor(TENANT);
    assertThat(range.size()).isEqualTo(8);
    for (int shard = 0; shard < SHARDS; shard++) {
      double share = counts[shard] / (double) rows;
      if (range.contains(shard)) {
        assertThat(share).as("share of shard %d", shard).isBetween(0.115, 0.135);
      } else {
        assertThat(counts[shard]).as("rows on shard %d outside the tenant's range %s", shard, range).isZero();
      }
    }
  }

  @Test
  void hashingKeepsATenantOnOneShardAndDoubleHashingOnL() {
    RoutingPolicy hashing = RoutingPolicy.hashing(SHARDS);
    RoutingPolicy doubled = RoutingPolicy.doubleHashing(SHARDS, 8);
    int home = hashing.shardFor(TENANT, 1, 0);
    for (long row = 0; row < 10_000; row++) {
      assertThat(hashing.shardFor(TENANT, row, row)).isEqualTo(home);
      assertThat(doubled.shardsFor(TENANT).contains(doubled.shardFor(TENANT, row, row))).isTrue();
    }
    assertThat(hashing.shardsFor(TENANT)).isEqualTo(ShardSet.of(SHARDS, home));
    assertThat(doubled.shardsFor(TENANT)).isEqualTo(ShardSet.of(new ShardRange(home, 8, SHARDS)));
    assertThat(doubled.name()).isEqualTo("double-hashing(L=8)");
    assertThatThrownBy(() -> RoutingPolicy.doubleHashing(12, 16))
        .hasMessage("offset size L must be a power of two in [1, 8] for 12 shards; got: 16");
  }

  @Test
  void aChangeRoutesByItsRowsCreationTime() {
    RoutingPolicy policy = RoutingPolicy.dynamic(RuleList.of(SHARDS, List.of(Rule.grow(1_000, 16, TENANT))));
    TransactionLogChange insert = TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT).setTenantId(TENANT).setRowId(77).setCreatedTime(500).setModifiedTime(500)
        .setVersion(1).build();
    TransactionLogChange update = TransactionLogChange.newBuilder(insert)
        .setOp(ChangeOp.UPDATE).setModifiedTime(5_000).setVersion(2).build();
    assertThat(policy.shardFor(update)).isEqualTo(policy.shardFor(insert));
    assertThat(policy.shardFor(insert)).isEqualTo(RoutingPolicy.hashing(SHARDS).shardFor(TENANT, 77, 0));
  }

  @Test
  void shardRangeWrapsPastTheLastShard() {
    ShardRange range = new ShardRange(30, 4, 32);
    assertThat(range.shards()).containsExactly(30, 31, 0, 1);
    assertThat(range.contains(1)).isTrue();
    assertThat(range.contains(2)).isFalse();
    assertThat(range.contains(29)).isFalse();
    assertThat(range).hasToString("[30..1]");
  }

  @Test
  void logStoresTablesSplitATenantsRowsByWeightAndQueriesVisitEveryTableInForce() {
    ShardTable first = ShardTable.of(new int[] {5, 17, 30}, new double[] {0.5, 0.3, 0.2});
    ShardTable second = ShardTable.of(new int[] {2}, new double[] {1});
    RoutingPolicy policy = RoutingPolicy.logStore(RuleList.of(SHARDS, List.of(Rule.table(1_000, first, TENANT),
        Rule.table(2_000, second, TENANT))));
    int rows = 200_000;
    int[] counts = new int[SHARDS];
    for (long row = 0; row < rows; row++) {
      counts[policy.shardFor(TENANT, row, 1_500)]++;
    }
    assertThat(counts[5] / (double) rows).isCloseTo(0.5, within(0.01));
    assertThat(counts[17] / (double) rows).isCloseTo(0.3, within(0.01));
    assertThat(counts[30] / (double) rows).isCloseTo(0.2, within(0.01));
    assertThat(counts[5] + counts[17] + counts[30]).isEqualTo(rows);
    assertThat(policy.shardFor(TENANT, 12, 2_500)).isEqualTo(2);

    int home = RoutingPolicy.hashing(SHARDS).shardFor(TENANT, 1, 0);
    assertThat(policy.shardsFor(TENANT, 1_200, 1_800)).isEqualTo(ShardSet.of(SHARDS, 5, 17, 30));
    assertThat(policy.shardsFor(TENANT, 1_500, 2_500)).isEqualTo(ShardSet.of(SHARDS, 5, 17, 30, 2));
    assertThat(policy.shardsFor(TENANT)).as("rows before the first table are on the base shard")
        .isEqualTo(ShardSet.of(SHARDS, 5, 17, 30, 2, home));
    assertThat(policy.shardsFor(TENANT, 1_200, 1_800)).hasToString("[5, 17, 30]");
  }

  @Test
  void aShardSetReadsAsARangeWhenItIsOne() {
    assertThat(ShardSet.of(new ShardRange(30, 4, 32))).hasToString("[30..1]");
    assertThat(ShardSet.of(32, 3)).hasToString("[3]");
    assertThat(ShardSet.all(4)).hasToString("[0..3]");
    assertThat(ShardSet.of(32, 3, 4).union(ShardSet.of(32, 5))).hasToString("[3..5]");
    assertThat(ShardSet.of(32, 3, 5)).hasToString("[3, 5]");
  }
}
