package io.evenkeel.ingest;

import io.evenkeel.ingest.settings.IngestOptions;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.schemas.codec.AvroTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the ingest job: on a local Flink environment with its web UI ({@code --local}), or, packaged as a jar, on a
 * Flink cluster ({@code flink run -c io.evenkeel.ingest.IngestJobMain ingest-job.jar ...}).
 */
@Command(name = "ingest-job", mixinStandardHelpOptions = true,
    description = {"Kafka -> Flink -> shard servers: decoding, tenant monitoring, hotspot detection, write batching "
        + "and one-hop routed writes.",
        "Its cluster has " + IngestOptions.DEFAULT_SHARDS + " shards unless --shards says otherwise, and its ZooKeeper "
            + "is " + IngestOptions.DEFAULT_ZOOKEEPER + " unless --zookeeper says otherwise (the dynamic policy "
            + "needs it)."})
public final class IngestJobMain implements Callable<Integer> {
  @Mixin
  private IngestOptions options = new IngestOptions();

  @Option(names = "--parallelism", defaultValue = "2")
  int parallelism;

  @Option(names = "--checkpoint-interval-ms", defaultValue = "5000")
  long checkpointIntervalMs;

  @Option(names = "--checkpoint-dir", description = "Where checkpoints go (a file:// URI); default: the cluster's"
      + " setting, or a new temporary directory with --local.")
  String checkpointDir;

  @Option(names = "--local", description = "Run on a local Flink environment with the web UI.")
  boolean local;

  @Option(names = "--web-ui-port", defaultValue = "8081")
  int webUiPort;

  @Option(names = "--web-ui-host", defaultValue = "127.0.0.1",
      description = "With --local: the address the web UI (Flink's REST endpoint) binds; it has no authentication."
          + " (default: ${DEFAULT-VALUE})")
  String webUiHost;

  @Option(names = "--web-ui-tls-keystore", paramLabel = "P12", description = "With --local: serve the web UI and "
      + "REST API over TLS with this PKCS#12 key store, and take only clients whose certificate the trust store's CA "
      + "signed (Flink's REST API cancels jobs for whoever reaches it).")
  Path webUiKeyStore;

  @Option(names = "--web-ui-tls-truststore", paramLabel = "P12", description = "The PKCS#12 trust store: the CA of "
      + "the clients' certificates.")
  Path webUiTrustStore;

  @Option(names = "--web-ui-tls-password-file", paramLabel = "FILE", description = "The stores' password.")
  Path webUiStorePassword;

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
    int exit = commandLine.execute(args);
    IngestJobMain job = commandLine.getCommand();
    if (job.local || exit != 0) {
      System.exit(exit);
    }
    // On a cluster (a Flink application's main runs inside the JobManager) it returns: an exit would stop the
    // JobManager with the job it has just submitted.
  }

  @Override
  public Integer call() throws Exception {
    IngestSettings settings = options.settings();
    Configuration configuration = new Configuration();
    if (checkpointDir == null && local) {
      // Without a directory Flink keeps checkpoints in the JobManager's memory, capped at 5 MB: at tens of thousands
      // of changes per second the pending folds alone exceed it and every checkpoint fails.
      checkpointDir = Files.createTempDirectory("evenkeel-checkpoints").toUri().toString();
    }
    if (checkpointDir != null) {
      configuration.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
    }
    StreamExecutionEnvironment env;
    if (local) {
      LocalWebUi.configure(configuration, webUiHost, webUiPort);
      if (webUiKeyStore != null || webUiTrustStore != null || webUiStorePassword != null) {
        if (webUiKeyStore == null || webUiTrustStore == null || webUiStorePassword == null) {
          throw new IllegalArgumentException("--web-ui-tls-keystore, --web-ui-tls-truststore and "
              + "--web-ui-tls-password-file go together");
        }
        LocalWebUi.requireClientCertificates(configuration, webUiKeyStore, webUiTrustStore,
            Files.readString(webUiStorePassword).strip());
      }
      env = StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(configuration);
    } else {
      env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    }
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointIntervalMs, CheckpointingMode.EXACTLY_ONCE);
    IngestJob.build(env, settings);
    env.execute("evenkeel-ingest (" + settings.policy() + ")");
    return 0;
  }
}
