package io.evenkeel.cdc;

import io.evenkeel.schemas.table.ColumnMapping;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/** What a CDC runner captures, where it publishes, and where it keeps its state. */
public final class CdcSettings {
  @Option(names = "--source", required = true, paramLabel = "JDBC_URL",
      description = "The database: jdbc:mariadb://host:port/database?user=...&password=... (or jdbc:mysql://...)."
          + " The user needs SELECT, RELOAD, SHOW DATABASES, LOCK TABLES, REPLICATION SLAVE and REPLICATION CLIENT"
          + " (MariaDB: BINLOG MONITOR); the server binlog_format=ROW and binlog_row_image=FULL.")
  public String source;

  @Option(names = "--password-file", paramLabel = "FILE",
      description = "The user's password, the file's first line: kept off the command line (and ps). Overrides a"
          + " password in the URL.")
  public Path passwordFile;

  @Option(names = "--table", required = true, description = "The table to capture, in the URL's database.")
  public String table;

  @Option(names = "--columns", defaultValue = "", paramLabel = "MAPPING",
      description = "Which column of the table feeds each column of transaction_logs, where the names differ:"
          + " tenant_id=seller_id,row_id=order_id,created_time=created_at. Checked against the table at start;"
          + " give the ingest job the same mapping.")
  public String columns;

  @Option(names = "--connector", defaultValue = "mariadb",
      description = "Debezium's connector: mariadb, or mysql for a MySQL server. (default: ${DEFAULT-VALUE})")
  public String connectorName;

  @Option(names = "--bootstrap-servers", defaultValue = "127.0.0.1:9092")
  public String bootstrapServers;

  @Option(names = "--kafka-config", paramLabel = "FILE",
      description = "Kafka client properties (security settings) for the producer.")
  public Path kafkaConfig;

  @Option(names = "--topic-prefix", defaultValue = "evenkeel-cdc",
      description = "Debezium's topic prefix: events go to <prefix>.<database>.<table>. (default: ${DEFAULT-VALUE})")
  public String topicPrefix;

  @Option(names = "--state-dir", required = true, paramLabel = "DIR",
      description = "Where the runner keeps its binlog offsets and the table's schema history between runs.")
  public Path stateDir;

  @Option(names = "--server-id", defaultValue = "184054",
      description = "The replication client id the runner uses: unique among the server's replicas and binlog"
          + " readers. (default: ${DEFAULT-VALUE})")
  public long serverId;

  @Option(names = "--max-event-bytes",
      description = "The largest change event published (key and value); a larger one (an UPDATE of a row with a"
          + " large text carries it twice) goes to the dead-letter topic with its key, binlog position and reason,"
          + " and capture goes on. At most what the topic accepts (Kafka's default, about 1 MiB). (default:"
          + " ${DEFAULT-VALUE})")
  public int maxEventBytes = 1_000_000;

  @Option(names = "--dead-letter-topic",
      description = "Where events too large to publish go (the ingest job's dead-letter topic). (default:"
          + " ${DEFAULT-VALUE})")
  public String deadLetterTopic = "transaction-logs-dead-letters";

  CdcRunner.Connector connector;

  public ColumnMapping columnMapping() {
    return ColumnMapping.parse(columns);
  }

  /** Throws {@link IllegalArgumentException} naming a setting that cannot work. */
  public void validate() {
    connector = switch (connectorName) {
      case "mariadb" -> CdcRunner.Connector.MARIADB;
      case "mysql" -> CdcRunner.Connector.MYSQL;
      default -> throw new IllegalArgumentException("--connector is mariadb or mysql; got: " + connectorName);
    };
    if (maxEventBytes < 1024) {
      throw new IllegalArgumentException("--max-event-bytes is at least 1024; got: " + maxEventBytes);
    }
    columnMapping();
    sourceTable();
    kafkaProperties();
  }

  /** The captured table, with the password from {@code --password-file} when given. */
  public SourceTable sourceTable() {
    SourceTable table = SourceTable.of(source, this.table);
    if (passwordFile == null) {
      return table;
    }
    try {
      List<String> lines = Files.readAllLines(passwordFile);
      return table.withPassword(lines.isEmpty() ? "" : lines.get(0));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read --password-file " + passwordFile + ": " + e.getMessage(), e);
    }
  }

  /** The producer's properties: the {@code --kafka-config} file's and the bootstrap servers. */
  Properties kafkaProperties() {
    Properties properties = new Properties();
    if (kafkaConfig != null) {
      try (InputStream in = Files.newInputStream(kafkaConfig)) {
        properties.load(in);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read --kafka-config " + kafkaConfig + ": " + e.getMessage(), e);
      }
    }
    properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return properties;
  }
}
