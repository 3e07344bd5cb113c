package io.evenkeel.launcher.local;

import java.net.URI;
import java.nio.file.Path;

/**
 * What {@code evenkeel local --cdc} captures: a MySQL or MariaDB table, read by a CDC runner process into a topic
 * the ingest job reads as its second source.
 *
 * @param source the database's JDBC URL (with user and password)
 * @param columns the column mapping, given to both the runner and the job
 * @param datetimeZone the zone of the table's DATETIME values
 * @param connector mariadb or mysql
 * @param passwordFile the file holding the user's password, or null when the URL has it
 */
record CdcOptions(String source, String table, String columns, String datetimeZone, String connector,
    Path passwordFile) {
  static final String TOPIC_PREFIX = "evenkeel-cdc";

  /** The topic the runner publishes to: Debezium's {@code <prefix>.<database>.<table>}. */
  String topic() {
    String path = URI.create(source.substring("jdbc:".length())).getPath();
    return TOPIC_PREFIX + "." + (path == null ? "" : path.replaceFirst("^/", "")) + "." + table;
  }
}
