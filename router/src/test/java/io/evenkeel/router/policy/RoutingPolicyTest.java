package io.evenkeel.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.router.ShardRange;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
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
    ShardRange range = policy.shardsFor(TENANT);
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
    assertThat(hashing.shardsFor(TENANT)).isEqualTo(new ShardRange(home, 1, SHARDS));
    assertThat(doubled.shardsFor(TENANT).first()).isEqualTo(home);
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
}
