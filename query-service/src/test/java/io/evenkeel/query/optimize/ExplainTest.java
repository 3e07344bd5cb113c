package io.evenkeel.query.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.query.QueryService;
import io.evenkeel.query.auth.Access;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fixed queries in, EXPLAIN plans out: which access path each predicate gets (composite index, doc-values scan,
 * single-column index, union, service scan), the normalized WHERE, the route and the execution. No shard is
 * contacted: EXPLAIN only plans.
 */
class ExplainTest {
  /** 8 shards; tenant 7 spreads over 4 shards for rows created from t = 1,000,000 on. */
  private static final RuleList RULES = RuleList.of(8, List.of(Rule.grow(1_000_000L, 4, 7L)));
  private static QueryService optimized;
  private static QueryService plain;

  @BeforeAll
  static void start() {
    optimized = service(OptimizerRules.DEFAULT);
    plain = service(OptimizerRules.PLAIN);
  }

  private static QueryService service(List<AccessRule> rules) {
    return QueryService.builder()
        .placement(ShardPlacement.fixed(8, "127.0.0.1:1=0-7"))
        .routingPolicy(() -> RoutingPolicy.dynamic(RULES))
        .optimizer(OptimizerSettings.defaults().withRules(rules))
        .build();
  }

  @AfterAll
  static void stop() {
    optimized.close();
    plain.close();
  }

  private static String explain(QueryService service, String sql) {
    return service.execute("EXPLAIN " + sql, List.of(), SessionTimeZone.DEFAULT, false, Access.ALL).rows().stream()
        .map(row -> (String) row.get(0)).collect(Collectors.joining("\n"));
  }

  @Test
  void compositeIndexTakesTenantAndTimeAndScanListColumnsScanDocValues() {
    assertThat(explain(optimized, "SELECT * FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 "
        + "AND created_time < 2000 AND status IN (1, 2) AND seller_nick = 'ann' ORDER BY price DESC LIMIT 10"))
        .isEqualTo("""
            where: (tenant_id = 7 AND created_time in [1000, 2000) AND status IN (1, 2) AND seller_nick = 'ann')
            access:
              intersect
                composite index tenant_created (tenant_id, created_time): [7, 1000] .. [7, 1999] for tenant_id = 7 \
            AND created_time in [1000, 2000)
                doc-values scan: status IN (1, 2)
                index: seller_nick = 'ann'
            route: 1 of 8 shards by dynamic for created_time in [1000, 1999]: tenant 7 -> [6]
            execution: one phase: top 10 rows of the one shard by (price DESC, tenant_id, row_id), LIMIT 10""");
  }

  @Test
  void compositeIndexGivesTheOrderOfItsLastColumnForOneTenant() {
    String ordered = "top 20 ids per shard by (created_time DESC, tenant_id, row_id) (in composite index order: read "
        + "from the highest created_time in steps, stop at the page)";
    assertThat(explain(optimized, "SELECT * FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 "
        + "AND status = 1 ORDER BY created_time DESC LIMIT 20")).contains("execution: two-phase: " + ordered);
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 AND created_time < 1000 "
        + "ORDER BY created_time LIMIT 5 OFFSET 5")).contains("(in composite index order: read from the lowest "
        + "created_time in steps, stop at the page)");
    // another first key, several tenants, or no composite range: the shards rank every candidate
    for (String sql : List.of(
        "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 ORDER BY price LIMIT 20",
        "SELECT row_id FROM transaction_logs WHERE tenant_id IN (7, 8) AND created_time >= 1000 "
            + "ORDER BY created_time DESC LIMIT 20",
        "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 ORDER BY created_time DESC LIMIT 20",
        "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 LIMIT 20")) {
      assertThat(explain(optimized, sql)).as(sql).contains("top 20 hits per shard").doesNotContain("composite index order");
    }
    assertThat(explain(plain, "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 "
        + "ORDER BY created_time DESC LIMIT 20")).doesNotContain("composite index order");
  }

  @Test
  void selectListOfDocValuesColumnsNeedsNoFetch() {
    assertThat(explain(plain, "SELECT row_id, price * quantity FROM transaction_logs WHERE tenant_id = 7 "
        + "ORDER BY price DESC LIMIT 5 OFFSET 2")).endsWith("execution: one phase: top 7 hits per shard by "
        + "(price DESC, tenant_id, row_id) with row_id, price, quantity from doc values, merge, LIMIT 5 OFFSET 2 "
        + "(covered: no fetch)");
    for (String items : List.of("*", "row_id, title", "attr('color')", "COALESCE(seller_nick, attributes)")) {
      assertThat(explain(optimized, "SELECT " + items + " FROM transaction_logs WHERE tenant_id = 7 ORDER BY price "
          + "LIMIT 5")).as(items).endsWith("merge, LIMIT 5, then fetch the rows");
    }
  }

  @Test
  void optimizerOffUsesOneSingleColumnIndexPerPredicate() {
    assertThat(explain(plain, "SELECT * FROM transaction_logs WHERE tenant_id = 7 AND created_time >= 1000 "
        + "AND created_time < 2000 AND status IN (1, 2) AND seller_nick = 'ann' ORDER BY price DESC LIMIT 10"))
        .contains("""
            access:
              intersect
                index: tenant_id = 7
                index: created_time in [1000, 2000)
                index: status IN (1, 2)
                index: seller_nick = 'ann'
            """);
  }

  @Test
  void scanListColumnUsesItsIndexWhenNothingElseProducesCandidates() {
    assertThat(explain(optimized, "SELECT COUNT(*) FROM transaction_logs WHERE status = 3")).isEqualTo("""
        where: status = 3
        access:
          index: status = 3
        route: all 8 shards (no tenant_id = or IN in the WHERE clause)
        execution: aggregate on shards: COUNT(*); merge exactly in the service""");
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE tenant_id = 7 AND status = 1"))
        .isEqualTo("""
            where: (tenant_id = 7 AND status = 1)
            access:
              intersect
                doc-values scan: status = 1
                index: tenant_id = 7
            route: 4 of 8 shards by dynamic: tenant 7 -> [6..1]
            execution: fetch candidate rows""");
  }

  @Test
  void equalitiesMergeIntoInAndNotBecomesANegatedLeaf() {
    assertThat(explain(optimized, "SELECT seller_nick, COUNT(*), AVG(price) FROM transaction_logs "
        + "WHERE (status = 1 OR status = 2 OR 3 = status) AND NOT (buyer_nick = 'x') "
        + "GROUP BY seller_nick HAVING COUNT(*) > 2 ORDER BY 2 DESC"))
        .isEqualTo("""
            where: (status IN (1, 2, 3) AND buyer_nick != 'x')
            access:
              intersect
                index: status IN (1, 2, 3)
                index: buyer_nick != 'x'
            route: all 8 shards (no tenant_id = or IN in the WHERE clause)
            execution: aggregate on shards: COUNT(*), AVG(price) as sum and count by seller_nick; merge exactly \
            in the service, HAVING (COUNT(*) > 2), ORDER BY COUNT(*) DESC""");
  }

  @Test
  void orBecomesAUnionOfBranchesEachPlannedByTheRules() {
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs "
        + "WHERE (seller_nick = 'a' AND status = 1) OR buyer_nick LIKE 'b%' OR status NOT BETWEEN 1 AND 3"))
        .isEqualTo("""
            where: ((seller_nick = 'a' AND status = 1) OR buyer_nick LIKE 'b%' OR status < 1 OR status > 3)
            access:
              union
                intersect
                  doc-values scan: status = 1
                  index: seller_nick = 'a'
                index: buyer_nick LIKE 'b%'
                index: status < 1
                index: status > 3
            route: all 8 shards (no tenant_id = or IN in the WHERE clause)
            execution: fetch candidate rows""");
  }

  @Test
  void sharedConjunctIsFactoredOutAndColdAttributeIsTestedOnTheShardsRows() {
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs "
        + "WHERE (tenant_id = 7 AND quantity > 3) OR (tenant_id = 7 AND attr('color') = 'red') LIMIT 5"))
        .isEqualTo("""
            where: (tenant_id = 7 AND (quantity > 3 OR attr('color') = 'red'))
            access:
              intersect
                row condition on the shards' candidate rows: (quantity > 3 OR attr('color') = 'red')
                index: tenant_id = 7
            route: 4 of 8 shards by dynamic: tenant 7 -> [6..1]
            execution: one phase: top 5 hits per shard by (tenant_id, row_id) with row_id from doc values, merge, \
            LIMIT 5 (covered: no fetch)""");
  }

  @Test
  void hotAttributeKeysUseTheirIndexFieldAndColdOnesAreScanned() {
    try (QueryService hot = QueryService.builder()
        .placement(ShardPlacement.fixed(8, "127.0.0.1:1=0-7"))
        .routingPolicy(() -> RoutingPolicy.dynamic(RULES))
        .optimizer(OptimizerSettings.defaults().withHotAttributes(java.util.Set.of("color")))
        .build()) {
      assertThat(explain(hot, "SELECT row_id FROM transaction_logs WHERE attr('color') = 'red' "
          + "AND attr('size') = 'M'"))
          .contains("""
              access:
                intersect
                  row condition on the shards' candidate rows: attr('size') = 'M'
                  index: attr('color') = 'red'
              """);
    }
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE attr('color') = 'red'"))
        .contains("row condition on the shards' candidate rows: attr('color') = 'red'");
  }

  @Test
  void tenantInListGivesOneCompositeRangePerTenant() {
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE tenant_id IN (9, 7) "
        + "AND created_time BETWEEN 5 AND 10 AND MATCH(title) AGAINST('red wool')"))
        .isEqualTo("""
            where: (tenant_id IN (7, 9) AND created_time BETWEEN 5 AND 10 AND MATCH(title) AGAINST('red wool'))
            access:
              intersect
                union
                  composite index tenant_created (tenant_id, created_time): [7, 5] .. [7, 10] for tenant_id IN (7, 9) \
            AND created_time BETWEEN 5 AND 10
                  composite index tenant_created (tenant_id, created_time): [9, 5] .. [9, 10] for tenant_id IN (7, 9) \
            AND created_time BETWEEN 5 AND 10
                index: MATCH(title) AGAINST('red wool')
            route: 2 of 8 shards by dynamic for created_time in [5, 10]: tenant 7 -> [6], tenant 9 -> [1]
            execution: fetch candidate rows""");
  }

  @Test
  void expressionsAreTestedAndSortedByOnTheShards() {
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE price * quantity > 100 "
        + "ORDER BY IFNULL(quantity, 0) DESC, status LIMIT 3"))
        .isEqualTo("""
            where: ((price * quantity) > 100)
            access:
              row condition on the shards' candidate rows: ((price * quantity) > 100)
            route: all 8 shards (no tenant_id = or IN in the WHERE clause)
            execution: one phase: top 3 hits per shard by (IFNULL(quantity, 0) (on the shards) DESC, status, \
            tenant_id, row_id) with row_id from doc values, merge, LIMIT 3 (covered: no fetch)""");
    // Without a LIMIT every matching row is returned: the service sorts them.
    assertThat(explain(optimized, "SELECT row_id FROM transaction_logs WHERE tenant_id = 3 "
        + "ORDER BY LOWER(seller_nick)")).endsWith("execution: fetch candidate rows, ORDER BY LOWER(seller_nick) ASC");
  }

  @Test
  void withConditionsLeftToTheServiceItReadsTheCandidateRows() {
    try (QueryService inService = QueryService.builder()
        .placement(ShardPlacement.fixed(8, "127.0.0.1:1=0-7"))
        .routingPolicy(() -> RoutingPolicy.dynamic(RULES))
        .optimizer(OptimizerSettings.defaults().withConditionsOnShards(false))
        .build()) {
      assertThat(explain(inService, "SELECT row_id FROM transaction_logs WHERE tenant_id = 3 AND price * quantity > 100 "
          + "ORDER BY created_time DESC LIMIT 3"))
          .contains("service scan of candidate rows: ((price * quantity) > 100)")
          .contains("execution: fetch candidate rows, filter in the service, ORDER BY created_time DESC, LIMIT 3");
    }
  }

  @Test
  void aUnionShowsEachPartsPlanAskingForThePageOnlyThenWhatTheServiceDoes() {
    assertThat(explain(optimized, "SELECT row_id, price FROM transaction_logs WHERE tenant_id = 3 UNION ALL "
        + "SELECT row_id, price FROM transaction_logs WHERE tenant_id = 9 ORDER BY price DESC LIMIT 5"))
        .isEqualTo("""
            where: tenant_id = 3
            access:
              index: tenant_id = 3
            route: 1 of 8 shards by dynamic: tenant 3 -> [1]
            execution: one phase: top 5 hits per shard by (price DESC, tenant_id, row_id) with row_id, price from \
            doc values, merge, LIMIT 5 (covered: no fetch)
            UNION ALL
            where: tenant_id = 9
            access:
              index: tenant_id = 9
            route: 1 of 8 shards by dynamic: tenant 9 -> [1]
            execution: one phase: top 5 hits per shard by (price DESC, tenant_id, row_id) with row_id, price from \
            doc values, merge, LIMIT 5 (covered: no fetch)
            then in the service: combine, ORDER BY price DESC, LIMIT 5""");
  }

  @Test
  void contradictionsVisitNoShard() {
    assertThat(explain(optimized, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 7 "
        + "AND created_time > 5 AND created_time < 3"))
        .isEqualTo("""
            where: FALSE
            access:
              no rows
            route: no shards (the WHERE clause matches no tenant or time)
            execution: aggregate on shards: COUNT(*); merge exactly in the service""");
  }

  @Test
  void timeBoundsBeforeARuleKeepTheTenantOnOneShard() {
    assertThat(explain(optimized, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 7"))
        .contains("route: 4 of 8 shards by dynamic: tenant 7 -> [6..1]");
    assertThat(explain(optimized, "SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 7 "
        + "AND created_time < 1000000"))
        .contains("route: 1 of 8 shards by dynamic for created_time in [min, 999999]: tenant 7 -> [6]");
  }

  @Test
  void groupKeysAndAggregatesOfExpressionsAreComputedOnTheShards() {
    String sql = "SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS day, SUM(price * quantity), "
        + "COUNT(DISTINCT LOWER(seller_nick)) FROM transaction_logs WHERE tenant_id = 7 AND created_time < 1000000 "
        + "GROUP BY day ORDER BY day";
    assertThat(explain(optimized, sql)).endsWith("execution: aggregate on shards: SUM((price * quantity)), "
        + "DISTINCT_VALUES(LOWER(seller_nick)) by DATE(FROM_UNIXTIME((created_time / 1000))); merge exactly in the "
        + "service, ORDER BY DATE(FROM_UNIXTIME((created_time / 1000))) ASC");
    // The baseline computes them in the service from every candidate row.
    QueryService inService = QueryService.builder()
        .placement(ShardPlacement.fixed(8, "127.0.0.1:1=0-7"))
        .routingPolicy(() -> RoutingPolicy.dynamic(RULES))
        .optimizer(OptimizerSettings.defaults().withConditionsOnShards(false))
        .build();
    try {
      assertThat(explain(inService, sql)).contains("execution: fetch candidate rows, aggregate in the service by "
          + "DATE(FROM_UNIXTIME((created_time / 1000)))");
    } finally {
      inService.close();
    }
  }
}
