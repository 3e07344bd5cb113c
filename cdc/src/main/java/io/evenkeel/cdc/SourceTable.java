package io.evenkeel.cdc;

import io.evenkeel.schemas.table.ColumnMapping;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table a CDC runner captures, named by a JDBC URL ({@code jdbc:mariadb://host:port/database?user=u&password=p},
 * or {@code jdbc:mysql://...}) and a table name: where Debezium connects, and the check made before it starts that
 * the table can feed {@code transaction_logs} through the column mapping.
 */
public record SourceTable(String url, String host, int port, String database, String table, String user,
    String password) {

  /** Parses the JDBC URL; throws {@link IllegalArgumentException} naming what is missing. */
  public static SourceTable of(String jdbcUrl, String table) {
    if (!jdbcUrl.startsWith("jdbc:mariadb://") && !jdbcUrl.startsWith("jdbc:mysql://")) {
      throw new IllegalArgumentException("the source must be a jdbc:mariadb:// or jdbc:mysql:// URL; got: "
          + jdbcUrl);
    }
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    String database = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    if (uri.getHost() == null || database.isEmpty()) {
      throw new IllegalArgumentException("the source URL must name a host and a database "
          + "(jdbc:mariadb://host:port/database?user=...&password=...); got: " + jdbcUrl);
    }
    Map<String, String> query = new LinkedHashMap<>();
    if (uri.getQuery() != null) {
      for (String pair : uri.getQuery().split("&")) {
        int equals = pair.indexOf('=');
        query.put(equals < 0 ? pair : pair.substring(0, equals), equals < 0 ? "" : pair.substring(equals + 1));
      }
    }
    if (!query.containsKey("user")) {
      throw new IllegalArgumentException("the source URL must name a user (?user=...): " + jdbcUrl);
    }
    return new SourceTable(jdbcUrl, uri.getHost(), uri.getPort() < 0 ? 3306 : uri.getPort(), database, table,
        query.get("user"), query.getOrDefault("password", ""));
  }

  /** The same table, reached with this password instead of the URL's. */
  public SourceTable withPassword(String newPassword) {
    return new SourceTable(url, host, port, database, table, user, newPassword);
  }

  /** {@code database.table}, as Debezium's include lists and topic names have it. */
  public String qualifiedName() {
    return database + "." + table;
  }

  /** The table's columns, read from the server. */
  public List<String> columns() throws SQLException {
    // The URL's other options kept, its credentials given apart: the password may come from a file.
    String withoutCredentials = url.replaceAll("([?&])(user|password)=[^&]*", "$1").replaceAll("[?&]+$", "")
        .replaceAll("&&+", "&").replace("?&", "?");
    try (Connection connection = DriverManager.getConnection(withoutCredentials, user, password);
        Statement statement = connection.createStatement();
        ResultSet none = statement.executeQuery("SELECT * FROM `" + database.replace("`", "``") + "`.`"
            + table.replace("`", "``") + "` WHERE 1 = 0")) {
      List<String> columns = new ArrayList<>();
      for (int i = 1; i <= none.getMetaData().getColumnCount(); i++) {
        columns.add(none.getMetaData().getColumnName(i));
      }
      return columns;
    }
  }

  /** Throws {@link IllegalArgumentException} naming every problem when the table cannot feed the mapping. */
  public void check(ColumnMapping mapping) throws SQLException {
    List<String> problems = mapping.problems(qualifiedName(), columns());
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("cannot capture " + qualifiedName() + " into transaction_logs: "
          + String.join("; ", problems));
    }
  }
}
