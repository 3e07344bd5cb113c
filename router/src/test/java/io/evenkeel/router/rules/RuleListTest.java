package io.evenkeel.router.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.RoutingRule;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
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

  @Test
  void aTableRuleRoutesNewRowsByItsTableAndQueriesCoverEveryPlacementInForce() {
    ShardTable first = ShardTable.of(new int[] {3, 9}, new double[] {3, 1});
    ShardTable second = ShardTable.of(new int[] {3, 9, 12}, new double[] {1, 1, 2});
    RuleList rules = RuleList.of(16, List.of(Rule.table(100, first, 7), Rule.table(200, second, 7),
        Rule.grow(300, 4, 7)));
    assertThat(first.weights()).containsExactly(0.75, 0.25);
    assertThat(first.closeTo(ShardTable.of(new int[] {3, 9}, new double[] {0.78, 0.22}), 0.05)).isTrue();
    assertThat(first.closeTo(ShardTable.of(new int[] {3, 9}, new double[] {0.5, 0.5}), 0.05)).isFalse();
    assertThat(first.closeTo(ShardTable.of(new int[] {9, 3}, new double[] {0.25, 0.75}), 0.05)).isFalse();
    assertThat(rules.tableFor(7, 99)).isNull();
    assertThat(rules.tableFor(7, 150)).isEqualTo(first);
    assertThat(rules.tableFor(7, 250)).isEqualTo(second);
    assertThat(rules.spreadFor(7, 250)).isEqualTo(3);
    // A grow rule after a table goes back to consecutive shards, from L = 1 up.
    assertThat(rules.tableFor(7, 300)).isNull();
    assertThat(rules.offsetSizeFor(7, 300)).isEqualTo(4);
    assertThat(rules.tablesBetween(7, 0, 99)).isEmpty();
    assertThat(rules.maxOffsetSizeBetween(7, 0, 99)).isEqualTo(1);
    assertThat(rules.tablesBetween(7, 150, 250)).containsExactly(first, second);
    assertThat(rules.maxOffsetSizeBetween(7, 150, 250)).as("no row of [150, 250] went by L").isZero();
    assertThat(rules.tablesBetween(7, 250, 400)).containsExactly(second);
    assertThat(rules.maxOffsetSizeBetween(7, 250, 400)).isEqualTo(4);
  }

  @Test
  void malformedTablesAreRejected() {
    assertThatThrownBy(() -> ShardTable.of(new int[] {1, 1}, new double[] {1, 1}))
        .hasMessage("a shard table's shards must be distinct and >= 0; got: [1, 1]");
    assertThatThrownBy(() -> ShardTable.of(new int[] {1, 2}, new double[] {1, 0}))
        .hasMessage("a shard table's weights must be positive; got: [1.0, 0.0]");
    assertThatThrownBy(() -> ShardTable.of(new int[0], new double[0]))
        .hasMessage("a shard table needs one weight a shard and at least one shard; got 0 shards and 0 weights");
    ShardTable table = ShardTable.of(new int[] {1, 16}, new double[] {1, 1});
    assertThatThrownBy(() -> RuleList.empty(16).append(Rule.table(100, table, 7)))
        .hasMessageStartingWith("a table rule names a shard outside [0, 16)");
    assertThatThrownBy(() -> new Rule(100, 2, new long[] {7}, true, table))
        .hasMessage("a table rule has L = 1 and replaces what was in force (cool-down); got L=2, coolDown=true");
  }

  @Test
  void aTableRuleTravelsAsAvroAndRulesWrittenBeforeTablesStillRead() throws Exception {
    SingleObjectCodec<RoutingRule> codec = SingleObjectCodec.of(RoutingRule.class);
    Rule table = Rule.table(1_000, ShardTable.of(new int[] {4, 2}, new double[] {0.5, 1.5}), 3, 5);
    assertThat(Rule.fromAvro(codec.decode(codec.encode(table.toAvro())))).isEqualTo(table);
    // Weights that do not divide evenly read back equal too (a table is normalized once, when it is made).
    for (int seed = 1; seed < 200; seed++) {
      ShardTable odd = ShardTable.of(new int[] {0, 1, 2}, new double[] {seed * 0.37, 1.3 / seed, 0.7});
      assertThat(ShardTable.fromAvro(odd.toAvro())).isEqualTo(odd);
    }

    // A rule as a stack written before tables existed stored it: its own (older) schema's fingerprint and fields.
    Schema older = new Schema.Parser().parse(RuleListTest.class.getResourceAsStream(
        "/io/evenkeel/schemas/history/RoutingRule-1.avsc"));
    GenericRecord record = new GenericData.Record(older);
    record.put("effective_time", 2_000L);
    record.put("offset_size", 4);
    record.put("tenants", List.of(8L));
    record.put("cool_down", false);
    byte[] written = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(record).array();
    assertThat(Rule.fromAvro(codec.decode(written))).isEqualTo(Rule.grow(2_000, 4, 8));
  }
}
