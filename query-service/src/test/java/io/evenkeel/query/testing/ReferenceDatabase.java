package io.evenkeel.query.testing;

import io.evenkeel.embedded.MariaDbServer;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A throw-away database in a real MariaDB holding the same rows as the shards. The server is the one at {@code
 * -Devenkeel.mariadb.url}, else the machine's (127.0.0.1:3306, root, no password), else a private one the test
 * starts ({@link MariaDbServer}). The table has strings in utf8mb4 with the binary no-pad collation (code
 * point order, trailing spaces significant, as the shards compare), times in UTC, and one column per attribute key
 * ({@code attr__color}) standing in for {@code attr('color')}.
 */
public final class ReferenceDatabase implements AutoCloseable {
  public static final List<String> ATTRIBUTE_KEYS = List.of("color", "size", "brand");
  private static final String DEFAULT_URL = "jdbc:mariadb://127.0.0.1:3306/?user=root";

  private final Connection connection;
  private final String database;
  private final MariaDbServer server;

  private ReferenceDatabase(Connection connection, String database, MariaDbServer server) {
    this.connection = connection;
    this.database = database;
    this.server = server;
  }

  /**
   * A database someone else made (a view over a captured table, say), queried through {@code connection}; closing
   * drops it and closes the connection.
   */
  public static ReferenceDatabase of(Connection connection, String database) {
    return new ReferenceDatabase(connection, database, null);
  }

  /** {@code dir} holds a private server's files if one is needed. */
  public static ReferenceDatabase create(Path dir) throws Exception {
    String configured = System.getProperty("evenkeel.mariadb.url");
    String url = configured != null ? configured : DEFAULT_URL;
    MariaDbServer server = null;
    Connection connection;
    try {
      connection = DriverManager.getConnection(url);
    } catch (SQLException e) {
      if (configured != null || !MariaDbServer.installed()) {
        throw new SQLException("the differential test needs MariaDB at " + url + " or an installed mariadbd to "
            + "start one (apt-get install mariadb-server); or pass -Devenkeel.mariadb.url=jdbc:mariadb://...", e);
      }
      server = MariaDbServer.start(dir, false);
      connection = DriverManager.getConnection(server.url("", MariaDbServer.ADMIN));
    }
    String database = "evenkeel_query_test_" + ProcessHandle.current().pid() + "_" + System.nanoTime() % 1_000_000;
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET time_zone = '+00:00'");
      // Text made by functions and literals takes the connection's collation: the same as the columns', as in the
      // service, where every string compares by code point.
      statement.execute("SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin");
      statement.execute("CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
      statement.execute("USE " + database);
      StringBuilder ddl = new StringBuilder("CREATE TABLE transaction_logs (tenant_id BIGINT NOT NULL, "
          + "row_id BIGINT NOT NULL, created_time BIGINT NOT NULL, modified_time BIGINT NOT NULL, status INT, "
          + "buyer_id BIGINT, seller_nick VARCHAR(64), buyer_nick VARCHAR(64), title VARCHAR(255), "
          + "price DECIMAL(18, 2), quantity INT, group_id BIGINT, attributes VARCHAR(1024)");
      for (String key : ATTRIBUTE_KEYS) {
        ddl.append(", attr__").append(key).append(" VARCHAR(64)");
      }
      ddl.append(", PRIMARY KEY (tenant_id, row_id))");
      statement.execute(ddl.toString());
    }
    return new ReferenceDatabase(connection, database, server);
  }

  public void insert(Collection<TransactionLogChange> rows) throws SQLException {
    String sql = "INSERT INTO transaction_logs VALUES (" + "?, ".repeat(12 + ATTRIBUTE_KEYS.size()) + "?)";
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      for (TransactionLogChange row : rows) {
        int i = 1;
        insert.setLong(i++, row.getTenantId());
        insert.setLong(i++, row.getRowId());
        insert.setLong(i++, row.getCreatedTime());
        insert.setLong(i++, row.getModifiedTime());
        insert.setObject(i++, row.getStatus(), Types.INTEGER);
        insert.setObject(i++, row.getBuyerId(), Types.BIGINT);
        insert.setString(i++, row.getSellerNick());
        insert.setString(i++, row.getBuyerNick());
        insert.setString(i++, row.getTitle());
        insert.setBigDecimal(i++, row.getPrice());
        insert.setObject(i++, row.getQuantity(), Types.INTEGER);
        insert.setObject(i++, row.getGroupId(), Types.BIGINT);
        insert.setString(i++, row.getAttributes());
        Map<String, String> attributes = TableRow.parseAttributes(row.getAttributes());
        for (String key : ATTRIBUTE_KEYS) {
          insert.setString(i++, attributes.get(key));
        }
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** Deletes the rows with these (tenant_id, row_id) keys. */
  public void delete(Collection<List<Long>> keys) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(
        "DELETE FROM transaction_logs WHERE tenant_id = ? AND row_id = ?")) {
      for (List<Long> key : keys) {
        delete.setLong(1, key.get(0));
        delete.setLong(2, key.get(1));
        delete.addBatch();
      }
      delete.executeBatch();
    }
  }

  /** The rows of a query, each value a Long, BigDecimal, String or null. */
  /** {@code sql}'s rows with the session time zone {@code timeZone} ('+08:00'), then back to UTC. */
  public List<List<Object>> queryInTimeZone(String sql, String timeZone) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET time_zone = '" + timeZone.replace("'", "") + "'");
    }
    try {
      return query(sql);
    } finally {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET time_zone = '+00:00'");
      }
    }
  }

  public List<List<Object>> query(String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<Object> row = new ArrayList<>(columns);
        for (int i = 1; i <= columns; i++) {
          Object value = result.getObject(i);
          if (value instanceof java.sql.Timestamp timestamp) {
            value = timestamp.toLocalDateTime();
          }
          if (value instanceof java.time.LocalDateTime time) {
            // As MySQL's text protocol shows a DATETIME(n): n fractional digits, as the service answers it.
            String nanos = String.format("%09d", time.getNano());
            int digits = result.getMetaData().getScale(i);
            value = time.toLocalDate() + " " + time.toLocalTime().withNano(0).toString().substring(0, 5)
                + String.format(":%02d", time.getSecond()) + (digits > 0 ? "." + nanos.substring(0, digits) : "");
          }
          // BIGINT UNSIGNED (CAST(... AS UNSIGNED)) comes as a BigInteger: its value, as the service's numbers are.
          row.add(value instanceof Integer number ? (Object) number.longValue()
              : value instanceof Double number ? BigDecimal.valueOf(number)
              : value instanceof java.math.BigInteger big ? new BigDecimal(big) : value);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  @Override
  public void close() throws SQLException, InterruptedException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + database);
    } finally {
      connection.close();
      if (server != null) {
        server.close();
      }
    }
  }
}
