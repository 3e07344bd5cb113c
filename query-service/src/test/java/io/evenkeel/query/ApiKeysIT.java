package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query service with API keys, over HTTP against real shard servers: no key or a wrong one gets 401; a tenant
 * key's statements, however written, return exactly what an admin gets for the same statement with the tenant
 * predicate added by hand (to each of its SELECTs: subqueries and UNION parts), and a statement naming another
 * tenant gets 403; a rotated key works at once, the old one
 * no longer.
 */
class ApiKeysIT {
  @TempDir Path dir;

  /** Each WHERE clause, written to reach other tenants' rows; %s is where the clause goes. */
  private static final List<String> ADVERSARIAL = List.of(
      "status = 1 OR tenant_id = 12",
      "NOT tenant_id = 7",
      "tenant_id <> 7 OR tenant_id = 7",
      "1 = 1",
      "tenant_id >= 0 -- AND tenant_id = 7\n",
      "tenant_id IN (SELECT 12) OR TRUE",
      "title LIKE '%' /* tenant_id = 7 */",
      "(tenant_id = 7 OR buyer_nick = 'bob') OR (status IS NULL OR status IS NOT NULL)",
      "tenant_id = 7 OR ' OR tenant_id = 12 UNION SELECT * FROM transaction_logs' = ''",
      "row_id >= 0");

  @Test
  void aTenantKeyReadsOnlyItsTenantsWhateverItsSqlSays() throws Exception {
    String[] admin = ApiKeys.newKey("ops", "admin");
    String[] shop = ApiKeys.newKey("shop7", "tenant 7,9");
    Path keyFile = dir.resolve("keys");
    Files.write(keyFile, List.of(admin[1], shop[1]));
    try (TestCluster cluster = TestCluster.start(dir.resolve("shards"), RoutingPolicy.hashing(4), 1)) {
      Random random = new Random(5);
      List<TransactionLogChange> rows = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        rows.add(TestRows.random(random, 5 + i % 10, i, 5));
      }
      cluster.write(rows);
      SqlClient anonymous = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(10),
          ApiKeys.open(keyFile));
      SqlClient asAdmin = anonymous.withKey(admin[0]);
      SqlClient asShop = anonymous.withKey(shop[0]);

      assertThat(anonymous.sql("SELECT COUNT(*) FROM transaction_logs").status()).isEqualTo(401);
      assertThat(anonymous.withKey("ops.wrong").sql("SELECT COUNT(*) FROM transaction_logs").status()).isEqualTo(401);
      assertThat(anonymous.get("/health").status()).isEqualTo(200);
      assertThat(asShop.get("/attributes").status()).isEqualTo(403);
      assertThat(asAdmin.get("/attributes").status()).isEqualTo(200);
      assertThat(asAdmin.sql("SELECT COUNT(*) FROM transaction_logs").body().at("/rows/0/0").asLong())
          .isEqualTo(rows.size());

      for (String where : ADVERSARIAL) {
        for (String shape : List.of("SELECT tenant_id, row_id FROM transaction_logs WHERE %s ORDER BY row_id",
            "SELECT tenant_id, COUNT(*) FROM transaction_logs WHERE %s GROUP BY tenant_id ORDER BY tenant_id")) {
          String sql = String.format(shape, where);
          SqlClient.Answer mine = asShop.sql(sql);
          SqlClient.Answer expected = asAdmin.sql(String.format(shape, "tenant_id IN (7, 9) AND (" + where + ")"));
          if (expected.status() != 200) {
            assertThat(mine.status()).as(sql).isEqualTo(expected.status());
            continue;
          }
          assertThat(mine.status()).as(sql + ": " + mine.body()).isEqualTo(200);
          assertThat(mine.body().get("rows")).as(sql).isEqualTo(expected.body().get("rows"));
          for (JsonNode row : mine.body().get("rows")) {
            assertThat(row.get(0).asLong()).as(sql).isIn(7L, 9L);
          }
        }
      }
      SqlClient.Answer withParams = asShop.post("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = ? OR ? = ?",
          List.of(12L, 1L, 1L), false);
      assertThat(withParams.body().at("/rows/0/0").asLong())
          .isEqualTo(rows.stream().filter(r -> r.getTenantId() == 7 || r.getTenantId() == 9).count());

      // Every SELECT of a statement is restricted: its subqueries' and each side of a UNION.
      String mineOnly = "tenant_id IN (7, 9) AND ";
      for (String[] pair : List.of(
          new String[] {"SELECT tenant_id, row_id FROM transaction_logs WHERE %srow_id IN (SELECT row_id FROM "
              + "transaction_logs WHERE %sstatus = 1) ORDER BY tenant_id, row_id"},
          new String[] {"SELECT COUNT(*) FROM transaction_logs WHERE %sprice > (SELECT AVG(price) FROM "
              + "transaction_logs WHERE %sstatus IS NOT NULL)"},
          new String[] {"SELECT COUNT(*) FROM transaction_logs WHERE %sNOT EXISTS (SELECT row_id FROM "
              + "transaction_logs WHERE %stenant_id NOT IN (7, 9))"},
          new String[] {"SELECT tenant_id, row_id FROM transaction_logs WHERE %sstatus = 1 UNION ALL SELECT tenant_id, "
              + "row_id FROM transaction_logs WHERE %sstatus = 2 ORDER BY 1, 2"})) {
        SqlClient.Answer mine = asShop.sql(String.format(pair[0], "", ""));
        SqlClient.Answer expected = asAdmin.sql(String.format(pair[0], mineOnly, mineOnly));
        assertThat(mine.status()).as(pair[0] + ": " + mine.body()).isEqualTo(200);
        assertThat(mine.body().get("rows")).as(pair[0]).isEqualTo(expected.body().get("rows"));
        assertThat(mine.body().get("rows")).as(pair[0]).isNotEmpty();
      }
      assertThat(asShop.sql("SELECT COUNT(*) FROM transaction_logs WHERE row_id IN (SELECT row_id FROM "
          + "transaction_logs WHERE tenant_id = 12)").status()).isEqualTo(403);
      assertThat(asShop.sql("SELECT row_id FROM transaction_logs UNION SELECT row_id FROM transaction_logs WHERE "
          + "tenant_id = 12").status()).isEqualTo(403);

      SqlClient.Answer other = asShop.sql("SELECT * FROM transaction_logs WHERE tenant_id IN (7, 12)");
      assertThat(other.status()).isEqualTo(403);
      assertThat(other.body().get("error").asText()).contains("shop7").contains("[12]");
      assertThat(asShop.sql("EXPLAIN SELECT * FROM transaction_logs WHERE tenant_id = 12").status()).isEqualTo(403);
      assertThat(asShop.sql("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 7").body().at("/rows/0/0")
          .asLong()).isEqualTo(rows.stream().filter(r -> r.getTenantId() == 7).count());

      // Rotation without a restart: the file gets a new secret for shop7; the service reads it within a second.
      String[] rotated = ApiKeys.newKey("shop7", "tenant 7,9");
      Path next = dir.resolve("keys.next");
      Files.write(next, List.of(admin[1], rotated[1]));
      Files.move(next, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Thread.sleep(1_100);
      assertThat(asShop.sql("SELECT COUNT(*) FROM transaction_logs").status()).isEqualTo(401);
      assertThat(anonymous.withKey(rotated[0]).sql("SELECT COUNT(*) FROM transaction_logs").status()).isEqualTo(200);
    }
  }
}
