package io.evenkeel.ingest;

import io.evenkeel.schemas.codec.AvroTrust;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the ingest job: on a local Flink environment with its web UI ({@code --local}), or, packaged as a jar, on a
 * Flink cluster ({@code flink run -c io.evenkeel.ingest.IngestJobMain ingest-job.jar ...}).
 */
@Command(name = "ingest-job", mixinStandardHelpOptions = true,
    description = "Kafka -> Flink -> shard servers: decoding, tenant monitoring, hotspot detection, write batching "
        + "and one-hop routed writes.")
public final class IngestJobMain implements Callable<Integer> {
  private final IngestSettings settings = new IngestSettings();

  @Option(names = "--bootstrap-servers", description = "Kafka brokers (default: ${DEFAULT-VALUE}).",
      defaultValue = "127.0.0.1:9092")
  void bootstrapServers(String value) {
    settings.bootstrapServers = value;
  }

  @Option(names = "--topic", defaultValue = "transaction-logs", description = "Topic of Avro changes.")
  void topic(String value) {
    settings.topic = value;
  }

  @Option(names = "--dead-letter-topic", defaultValue = "transaction-logs-dead-letters")
  void deadLetterTopic(String value) {
    settings.deadLetterTopic = value;
  }

  @Option(names = "--summary-topic", defaultValue = "tenant-window-summaries")
  void summaryTopic(String value) {
    settings.summaryTopic = value;
  }

  @Option(names = "--proposal-topic", defaultValue = "rule-proposals")
  void proposalTopic(String value) {
    settings.proposalTopic = value;
  }

  @Option(names = "--group-id", defaultValue = "evenkeel-ingest")
  void groupId(String value) {
    settings.groupId = value;
  }

  @Option(names = "--start-offsets", defaultValue = "committed", description = "earliest, latest or committed.")
  void startOffsets(String value) {
    settings.startOffsets = value;
  }

  @Option(names = "--zookeeper", defaultValue = "127.0.0.1:2181")
  void zookeeper(String value) {
    settings.zookeeper = value;
  }

  @Option(names = "--zookeeper-root", defaultValue = "/evenkeel/local")
  void zookeeperRoot(String value) {
    settings.zookeeperRoot = value;
  }

  @Option(names = "--shards", defaultValue = "12", description = "Number of shards N.")
  void shards(int value) {
    settings.numShards = value;
  }

  @Option(names = "--placement", required = true,
      description = "Shard primaries: host:port=shards,... e.g. 127.0.0.1:7001=0-5,127.0.0.1:7002=6-11")
  void placement(String value) {
    settings.placement = value;
  }

  @Option(names = "--policy", defaultValue = "dynamic", description = "hashing, double:L or dynamic.")
  void policy(String value) {
    settings.policy = value;
  }

  @Option(names = "--monitor-window-ms", defaultValue = "10000")
  void monitorWindow(long value) {
    settings.monitorWindowMs = value;
  }

  @Option(names = "--batch-window-ms", defaultValue = "200", description = "Write batching window; 0 disables it.")
  void batchWindow(long value) {
    settings.batchWindowMs = value;
  }

  @Option(names = "--sink-batch-size", defaultValue = "1000")
  void sinkBatchSize(int value) {
    settings.sinkBatchSize = value;
  }

  @Option(names = "--sink-linger-ms", defaultValue = "50")
  void sinkLinger(long value) {
    settings.sinkLingerMs = value;
  }

  @Option(names = "--alpha", defaultValue = "0.25", description = "The planner's maxTenantShareOfShard.")
  void alpha(double value) {
    settings.maxTenantShareOfShard = value;
  }

  @Option(names = "--proposal-rest-ms", defaultValue = "60000")
  void proposalRest(long value) {
    settings.proposalRestMs = value;
  }

  @Option(names = "--effective-delay-ms", defaultValue = "10000", description = "T of the rule commit protocol.")
  void effectiveDelay(long value) {
    settings.effectiveDelayMs = value;
  }

  @Option(names = "--max-clock-skew-ms", defaultValue = "1000",
      description = "How far ahead of the job's clock created_time may be; below T/2.")
  void maxClockSkew(long value) {
    settings.maxClockSkewMs = value;
  }

  @Option(names = "--parallelism", defaultValue = "2")
  int parallelism;

  @Option(names = "--checkpoint-interval-ms", defaultValue = "5000")
  long checkpointIntervalMs;

  @Option(names = "--checkpoint-dir", description = "Where checkpoints go (a file:// URI); default: Flink's.")
  String checkpointDir;

  @Option(names = "--local", description = "Run on a local Flink environment with the web UI.")
  boolean local;

  @Option(names = "--web-ui-port", defaultValue = "8081")
  int webUiPort;

  public static void main(String[] args) {
    AvroTrust.install();
    CommandLine commandLine = new CommandLine(new IngestJobMain());
    commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof IllegalArgumentException) {
        line.getErr().println("ingest-job: " + e.getMessage());
        return CommandLine.ExitCode.USAGE;
      }
      throw e;
    });
    System.exit(commandLine.execute(args));
  }

  @Override
  public Integer call() throws Exception {
    settings.validate();
    Configuration configuration = new Configuration();
    if (checkpointDir != null) {
      configuration.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
    }
    StreamExecutionEnvironment env;
    if (local) {
      configuration.set(RestOptions.PORT, webUiPort);
      env = StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(configuration);
    } else {
      env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    }
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointIntervalMs, CheckpointingMode.EXACTLY_ONCE);
    IngestJob.build(env, settings);
    env.execute("evenkeel-ingest (" + settings.policy + ")");
    return 0;
  }
}
