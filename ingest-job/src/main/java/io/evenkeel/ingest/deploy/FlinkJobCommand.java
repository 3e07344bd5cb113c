package io.evenkeel.ingest.deploy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bin/evenkeel submit} and {@code bin/evenkeel savepoint}: the ingest job on a Flink cluster a user already
 * runs. {@code submit} uploads {@code ingest-job.jar} (the job with its connectors, without what the cluster's Flink
 * provides) and runs it with the job's flags, from a savepoint if asked; {@code savepoint} takes one, and with {@code
 * --stop} stops the job with it, so that a new version of the job resumes from it without losing or repeating a
 * change.
 */
@Command(name = "evenkeel", mixinStandardHelpOptions = true,
    subcommands = {FlinkJobCommand.Submit.class, FlinkJobCommand.Savepoint.class})
public final class FlinkJobCommand {
  /** The job's main class in its jar (named, not imported: this package does not import the job's root). */
  static final String ENTRY_CLASS = "io.evenkeel.ingest.IngestJobMain";

  private FlinkJobCommand() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The commands, with an error's message (not its stack trace) for a refusal of the cluster's. */
  public static CommandLine commandLine() {
    CommandLine line = new CommandLine(new FlinkJobCommand());
    line.setExecutionExceptionHandler((e, command, parsed) -> {
      command.getErr().println("evenkeel: " + e.getMessage());
      return 1;
    });
    return line;
  }

  @Command(name = "submit", mixinStandardHelpOptions = true, description = {
      "Runs the ingest job on a Flink cluster: uploads ingest-job.jar through the cluster's REST API and runs it with "
          + "the job's flags (after --), then waits until it runs. Give the job a --checkpoint-dir the cluster's "
          + "task managers can all reach (file:// on a shared disk, s3://, ...).",
      "Example: bin/evenkeel submit --flink-rest http://jobmanager:8081 -- --bootstrap-servers kafka:9092 "
          + "--zookeeper zk:2181 --checkpoint-dir file:///shared/evenkeel-checkpoints"})
  static final class Submit implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Cluster cluster;

    @Option(names = "--jar", paramLabel = "FILE",
        description = "The job's jar (default: ingest-job/target/ingest-job.jar of this installation).")
    Path jar;

    @Option(names = "--from-savepoint", paramLabel = "PATH",
        description = "Resume from this savepoint (what `savepoint --stop` printed).")
    String savepoint;

    @Option(names = "--allow-non-restored-state",
        description = "Resume even if the savepoint holds state the job no longer has.")
    boolean allowNonRestoredState;

    @Option(names = "--timeout", defaultValue = "PT2M", paramLabel = "DURATION",
        description = "How long to wait for the job to run (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Parameters(paramLabel = "JOB_FLAG",
        description = "The job's flags (the ingest job's section of docs/CONFIGURATION.md lists them).")
    List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      Path file = jar != null ? jar : defaultJar();
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException("no job jar at " + file + " (build it with ./mvnw -q package -pl ingest-job"
            + " -am -DskipTests, or give --jar)");
      }
      FlinkRest flink = new FlinkRest(cluster.flinkRest);
      String jarId = flink.uploadJar(file);
      String job = flink.run(jarId, ENTRY_CLASS, jobArgs, savepoint, allowNonRestoredState);
      String state = awaitRunning(flink, job, timeout);
      spec.commandLine().getOut().println("job " + job + " " + state + " on " + cluster.flinkRest
          + (savepoint == null ? "" : ", resumed from " + savepoint));
      return 0;
    }

    private static Path defaultJar() {
      return Path.of(System.getProperty("evenkeel.home", ".")).resolve("ingest-job/target/ingest-job.jar");
    }
  }

  @Command(name = "savepoint", mixinStandardHelpOptions = true, description = {
      "Takes a savepoint of the ingest job on a Flink cluster and prints its path; with --stop, stops the job with it "
          + "(every change read so far written to the shards), for `submit --from-savepoint` of the same or a newer "
          + "job."})
  static final class Savepoint implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Cluster cluster;

    @Option(names = "--job", required = true, paramLabel = "ID", description = "The job's id (what submit printed).")
    String job;

    @Option(names = "--dir", required = true, paramLabel = "URI",
        description = "Where the savepoint goes: a directory every task manager and the job manager reach.")
    String directory;

    @Option(names = "--stop", description = "Stop the job with the savepoint.")
    boolean stop;

    @Option(names = "--timeout", defaultValue = "PT5M", paramLabel = "DURATION",
        description = "How long to wait for the savepoint (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
      FlinkRest flink = new FlinkRest(cluster.flinkRest);
      String path = stop ? flink.stopWithSavepoint(job, directory, timeout)
          : flink.savepoint(job, directory, timeout);
      spec.commandLine().getOut().println(path);
      return 0;
    }
  }

  /** The cluster both commands reach. */
  static final class Cluster {
    @Option(names = "--flink-rest", required = true, paramLabel = "URL",
        description = "The cluster's REST endpoint (its JobManager's web address).")
    URI flinkRest;
  }

  /** Waits until {@code job} runs; a job that fails, finishes or is cancelled first is an error naming its state. */
  static String awaitRunning(FlinkRest flink, String job, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String state = flink.state(job);
      if (state.equals("RUNNING")) {
        return state;
      }
      if (List.of("FAILED", "CANCELED", "FINISHED", "SUSPENDED").contains(state)) {
        throw new IllegalStateException("job " + job + " is " + state + " (the cluster's web UI has its exception)");
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("job " + job + " is still " + state + " after " + timeout.toSeconds() + " s");
      }
      Thread.sleep(200);
    }
  }
}
