package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.FlinkSessionCluster;
import io.evenkeel.ingest.deploy.FlinkJobCommand;
import io.evenkeel.ingest.deploy.FlinkRest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The job's jar ({@code target/ingest-job.jar}) on a standalone Flink session cluster of separate JVMs on Flink's jars
 * alone ({@code flink-lib}), as on a user's cluster: two JobManagers in Flink's ZooKeeper high availability (one
 * leads, one stands by) and two task managers. The job is run by {@code bin/evenkeel submit}, stopped with a savepoint
 * by {@code bin/evenkeel savepoint --stop} while changes keep arriving, resumed from it; then one task manager and
 * then the leading JobManager are killed with SIGKILL under load. Every row ends exactly once on the shard its rules
 * name.
 */
class FlinkClusterIT extends IngestJobHarness {
  private static final Pattern SUBMITTED = Pattern.compile("job ([0-9a-f]{32}) RUNNING");

  @Test
  void theJobJarRunsOnAClusterResumesFromItsSavepointAndOutlivesATaskManagerAndItsJobManager() throws Exception {
    // One slot each: the job's two parallel pipelines take one on each task manager, so a killed one held some.
    try (FlinkSessionCluster flink = FlinkSessionCluster.start(dir.resolve("flink"), Path.of("../flink-lib/target/lib"),
        2, zookeeper.getConnectString(), 2, 1, flinkJvmOptions(), Duration.ofSeconds(120))) {
      FlinkRest rest = new FlinkRest(URI.create(flink.restUrl()));
      List<String> jobFlags = new ArrayList<>(flags());
      jobFlags.addAll(List.of("--parallelism", "2", "--checkpoint-interval-ms", "500",
          "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString()));
      Producer producer = new Producer(kafka.bootstrapServers());

      String first = submit(flink, jobFlags, null);
      producer.produce("changes", 20_000, Integer.MAX_VALUE, 10_000);
      awaitIndexed(producer.stream.expectedLiveRows(), running(flink, first, false));

      String savepoint = evenkeel("savepoint", "--flink-rest", flink.restUrl(), "--job", first, "--stop",
          "--dir", dir.resolve("savepoints").toUri().toString()).strip();
      assertThat(rest.state(first)).isEqualTo("FINISHED");
      producer.produce("changes", 40_000, 30_000, 10_000); // while no job runs: they wait in Kafka

      String second = submit(flink, jobFlags, savepoint);
      producer.produce("changes", 50_000, 30_000, 10_000);
      ChildProcess lost = flink.taskManagers().get(0);
      lost.kill();
      long killed = System.nanoTime();
      flink.startTaskManager(); // where the lost one's pipeline restarts
      producer.produce("changes", 70_000, 30_000, 10_000);
      awaitIndexed(producer.stream.expectedLiveRows(), running(flink, second, true));
      long afterTaskManager = System.nanoTime() - killed;
      assertThat(failures(flink, second)).as("the job restarted after the lost task manager").isNotEmpty();

      flink.jobManagers().get(0).kill(); // the leader: it started alone
      killed = System.nanoTime();
      producer.produce("changes", 80_000, 30_000, 10_000);
      long recovered = awaitRunningUnderTheStandby(flink, second);
      producer.produce("changes", 90_000, 30_000, 10_000); // read by the job the standby recovered
      producer.kafka.close();
      awaitIndexed(producer.stream.expectedLiveRows(), running(flink, second, true));
      System.out.printf("Flink session cluster: job resumed from %s; every row indexed %d ms after a task manager's "
          + "kill -9; the job running under the standby JobManager %d ms after the leader's, every row indexed %d ms "
          + "after it%n", savepoint, afterTaskManager / 1_000_000, (recovered - killed) / 1_000_000,
          (System.nanoTime() - killed) / 1_000_000);
    }
  }

  /** Waits until the standby JobManager leads and runs {@code job} again; when it did, by {@link System#nanoTime}. */
  private static long awaitRunningUnderTheStandby(FlinkSessionCluster flink, String job) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    String state = "";
    while (!state.equals("RUNNING")) {
      assertThat(System.nanoTime()).as("job %s running under the standby (last: %s)", job, state).isLessThan(deadline);
      Thread.sleep(200);
      try {
        state = new FlinkRest(URI.create(flink.restUrl())).state(job);
      } catch (java.io.IOException electing) {
        state = electing.getMessage(); // the standby answers for the old leader until it leads
      }
    }
    return System.nanoTime();
  }

  /** {@code bin/evenkeel submit} of the job's jar with {@code jobFlags}; returns the job's id. */
  private String submit(FlinkSessionCluster flink, List<String> jobFlags, String savepoint) {
    List<String> args = new ArrayList<>(List.of("submit", "--flink-rest", flink.restUrl(),
        "--jar", Path.of("target/ingest-job.jar").toString()));
    if (savepoint != null) {
      args.addAll(List.of("--from-savepoint", savepoint));
    }
    args.add("--");
    args.addAll(jobFlags);
    Matcher submitted = SUBMITTED.matcher(evenkeel(args.toArray(String[]::new)));
    assertThat(submitted.find()).as("submit's answer names a running job").isTrue();
    return submitted.group(1);
  }

  /** Runs a {@code bin/evenkeel} command of the job's; its output, after checking it succeeded. */
  private static String evenkeel(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = FlinkJobCommand.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args);
    assertThat(exit).as("bin/evenkeel %s: %s", args[0], err).isZero();
    return out.toString();
  }

  /**
   * The job is on its way: running, or (when {@code restarts}) restarting after a lost task manager or recovered by a
   * new leading JobManager, whose REST API does not answer until it leads.
   */
  private static JobCheck running(FlinkSessionCluster flink, String job, boolean restarts) {
    return () -> {
      String state;
      try {
        state = new FlinkRest(URI.create(flink.restUrl())).state(job);
      } catch (java.io.IOException electing) {
        assertThat(restarts).as("job %s's cluster answers: %s", job, electing.getMessage()).isTrue();
        return;
      }
      assertThat(state).as("job %s", job)
          .isIn(restarts ? List.of("RUNNING", "RESTARTING", "CREATED", "INITIALIZING") : List.of("RUNNING"));
    };
  }

  /** The failures in a job's exception history (each restart's cause). */
  private static List<String> failures(FlinkSessionCluster flink, String job) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create(flink.restUrl() + "/jobs/" + job + "/exceptions")).build(), HttpResponse.BodyHandlers.ofString());
    List<String> failures = new ArrayList<>();
    new ObjectMapper().readTree(response.body()).path("exceptionHistory").path("entries")
        .forEach(entry -> failures.add(entry.path("exceptionName").asText()));
    return failures;
  }

  /** Flink's module opens for Java 17, as this JVM has them from the build. */
  private static List<String> flinkJvmOptions() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(option -> option.startsWith("--add-opens") || option.startsWith("--add-exports")).toList();
  }
}
