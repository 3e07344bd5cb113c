package io.evenkeel.launcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ResultTableTest {
  private static SqlResult parse(String json) throws Exception {
    return SqlResult.fromJson(new ObjectMapper().readTree(json), json);
  }

  @Test
  void rendersAnAlignedTableWithCountTimeAndShards() throws Exception {
    SqlResult result = parse("{\"columns\": [\"tenant_id\", \"seller_nick\", \"price\"],"
        + " \"rows\": [[42, \"shop-42\", \"19.90\"], [7, null, \"1250.00\"]], \"took_ms\": 12,"
        + " \"shards\": {\"total\": 4, \"succeeded\": 4, \"failed\": 0}}");
    assertThat(ResultTable.render(result)).isEqualTo("""
        +-----------+-------------+---------+
        | tenant_id | seller_nick | price   |
        +-----------+-------------+---------+
        |        42 | shop-42     |   19.90 |
        |         7 | NULL        | 1250.00 |
        +-----------+-------------+---------+
        2 rows in 12 ms, 4 shards
        """);
  }

  @Test
  void saysWhenTheResultIsPartial() throws Exception {
    SqlResult result = parse("{\"columns\": [\"n\"], \"rows\": [[3]], \"took_ms\": 5001,"
        + " \"shards\": {\"total\": 12, \"succeeded\": 11, \"failed\": 1}}");
    assertThat(ResultTable.render(result)).endsWith("1 row in 5001 ms, 12 shards (1 failed: the result is partial)\n");
  }
}
