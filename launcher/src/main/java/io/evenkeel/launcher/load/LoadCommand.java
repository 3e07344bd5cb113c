package io.evenkeel.launcher.load;

import io.evenkeel.launcher.cli.DurationConverter;
import io.evenkeel.launcher.cli.ClientCredentials;
import io.evenkeel.launcher.cli.UserError;
import io.evenkeel.launcher.local.StackInfo;
import io.evenkeel.launcher.sql.SqlClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code evenkeel load FILE}: bulk import of JSON Lines or CSV into the ingest topic. */
@Command(name = "load", mixinStandardHelpOptions = true,
    description = {"Produces each row of FILE as a change to the ingest topic of the local stack (found through "
        + "<data-dir>/stack.json) or of --bootstrap-servers.",
        "JSON Lines: one object per line with transaction_logs column names; CSV: a header line of column names. "
            + "tenant_id, row_id and created_time (epoch ms) are required; missing columns are NULL; decimals as "
            + "strings (\"19.90\"). An `op` field or column may say INSERT (default), UPDATE (a full after-image) or "
            + "DELETE. Without a `version`, each change gets the load's clock in microseconds, strictly increasing, "
            + "so later loads and later lines win. Without a `modified_time`, the time it is read.",
        "A malformed line stops the load (after what came before it is sent) unless --skip-bad."})
public final class LoadCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", description = "A .jsonl/.ndjson/.json or .csv file.")
  Path file;

  @Option(names = "--format", description = "jsonl or csv (default: from the file name).")
  String format;

  @Option(names = "--skip-bad", description = "Skip malformed lines (each reported, all counted) instead of stopping.")
  boolean skipBad;

  @Option(names = "--data-dir", defaultValue = "evenkeel-data", description = "The local stack's data directory (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--bootstrap-servers", description = "Kafka brokers (default: the local stack's).")
  String bootstrapServers;

  @Option(names = "--topic", description = "The ingest topic (default: the local stack's).")
  String topic;

  @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties for the producer and "
      + "admin client, e.g. security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location.")
  Path kafkaConfig;

  @Option(names = "--wait", description = "Return only when every loaded row is searchable as loaded: when the ingest "
      + "job's written offsets have passed the load's records and the query service has refreshed the shards; print "
      + "the time from the first row sent to that moment.")
  boolean await;

  @Option(names = "--written-offsets-group", description = "With --wait: the Kafka consumer group in which the ingest "
      + "job records the offsets it has written (default: the local stack's).")
  String writtenOffsetsGroup;

  @Option(names = "--wait-timeout", defaultValue = "10m", converter = DurationConverter.class,
      description = "How long --wait waits (default: ${DEFAULT-VALUE}).")
  Duration waitTimeout;

  @Option(names = "--url", description = "With --wait: the query service (default: the local stack's).")
  String url;

  @Mixin
  private ClientCredentials credentials = new ClientCredentials();

  @Option(names = "--progress-interval", defaultValue = "2s", converter = DurationConverter.class,
      description = "How often to print progress (default: ${DEFAULT-VALUE}).")
  Duration progressInterval;

  @Override
  public Integer call() throws Exception {
    if (!Files.isReadable(file)) {
      throw new UserError("cannot read " + file + (Files.exists(file) ? "" : ": no such file"));
    }
    RowReader.Format rowFormat;
    try {
      rowFormat = format == null ? RowReader.Format.of(file)
          : RowReader.Format.valueOf(format.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new UserError(format == null ? e.getMessage() : "--format must be jsonl or csv; got: '" + format + "'");
    }
    Path stackCa = null;
    if (bootstrapServers == null || topic == null || (await && (url == null || writtenOffsetsGroup == null))) {
      StackInfo stack = StackInfo.read(dataDir);
      bootstrapServers = bootstrapServers == null ? stack.bootstrapServers() : bootstrapServers;
      topic = topic == null ? stack.topic() : topic;
      url = url == null ? stack.queryService() : url;
      stackCa = stack.caCertificate() == null ? null : Path.of(stack.caCertificate());
      kafkaConfig = kafkaConfig == null && stack.kafkaConfig() != null ? Path.of(stack.kafkaConfig()) : kafkaConfig;
      writtenOffsetsGroup = writtenOffsetsGroup == null ? stack.writtenOffsetsGroup() : writtenOffsetsGroup;
      if (await && writtenOffsetsGroup == null) {
        throw new UserError(dataDir.resolve(StackInfo.FILE) + " does not name the written offsets group (a stack "
            + "started by an older version): restart it, or pass --written-offsets-group");
      }
    }
    PrintStream out = System.out;
    Properties properties = kafkaProperties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, "evenkeel-load");
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    // A broker that is not there should fail the load in seconds, naming it, not after the default minute.
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    out.printf("loading %s (%s, %,d bytes) into topic %s at %s%n", file, rowFormat.name().toLowerCase(Locale.ROOT),
        Files.size(file), topic, bootstrapServers);
    Loader.Result result;
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        RowReader reader = RowReader.open(file, rowFormat)) {
      result = new Loader(producer, topic, skipBad, out, progressInterval).load(reader, Files.size(file));
    } catch (IOException e) {
      out.println("load failed: " + e.getMessage());
      return 1;
    }
    if (result.stoppedAt() != null) {
      out.printf("stopped at %s%n%,d rows were sent before it; fix the line, or pass --skip-bad to skip malformed "
          + "lines%n", result.stoppedAt().getMessage(), result.sent());
      return 1;
    }
    out.printf("loaded %,d rows in %.1f s (%,.0f rows/s)%s%n", result.sent(), result.took().toNanos() / 1e9,
        result.rowsPerSecond(), result.skipped() == 0 ? "" : String.format("; skipped %,d malformed lines",
            result.skipped()));
    if (await && result.sent() > 0) {
      Properties admin = kafkaProperties();
      admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      try (Admin kafka = Admin.create(admin)) {
        new SearchableWait(kafka, writtenOffsetsGroup, topic, out)
            .await(result.lastOffsets(), new SqlClient(url, credentials.key(), credentials.caCertificate(stackCa)),
                waitTimeout);
      } catch (IOException e) {
        out.println("wait failed: " + e.getMessage());
        return 1;
      }
      out.printf("all %,d loaded rows searchable %.1f s after the first was sent%n", result.sent(),
          (System.nanoTime() - result.firstSentNanos()) / 1e9);
    }
    return 0;
  }

  /** The {@code --kafka-config} properties (security settings, passed through as they are), or none. */
  private Properties kafkaProperties() {
    Properties properties = new Properties();
    if (kafkaConfig != null) {
      try (var in = Files.newInputStream(kafkaConfig)) {
        properties.load(in);
      } catch (IOException e) {
        throw new UserError("cannot read --kafka-config " + kafkaConfig + ": " + e.getMessage(), e);
      }
    }
    return properties;
  }
}
