package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.shard.StatsRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

/** The ingest job restored from a checkpoint after a cancel or a crash, and with a shard server paused. */
class IngestJobRecoveryIT extends IngestJobHarness {
  @Test
  void aCancelledJobRestoredFromItsCheckpointEndsWithTheSameIndex() throws Exception {
    addFlags("--policy", "double:4");
    Producer producer = new Producer(kafka.bootstrapServers());
    Configuration configuration = new Configuration();
    configuration.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
    configuration.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        org.apache.flink.configuration.ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    JobClient first = submit(configuration);
    producer.produce("changes", 60_000, Integer.MAX_VALUE, 20_000);
    awaitCheckpoint(dir.resolve("checkpoints").resolve(first.getJobID().toString()));
    first.cancel().get(30, TimeUnit.SECONDS);
    producer.produce("changes", 120_000, Integer.MAX_VALUE, 20_000);
    producer.kafka.close();

    Path checkpoint = latestCheckpoint(dir.resolve("checkpoints").resolve(first.getJobID().toString()));
    Configuration restore = new Configuration(configuration);
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
    JobClient second = submit(restore);
    awaitIndexed(producer.stream.expectedLiveRows(), second);
    second.cancel().get(30, TimeUnit.SECONDS);
  }

  /**
   * A crash, not a cancel: the task manager running the job dies mid-stream (a tenant turning hot meanwhile); Flink
   * restarts the job from its last checkpoint on a new task manager, and the index ends as a run without the crash.
   */
  @Test
  void aCrashedJobRestartsFromItsCheckpointWithTheSameIndex(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
    Configuration configuration = restartingThreeTimes();
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(configuration);
    producer.produce("changes", 60_000, 30_000, 20_000);
    miniCluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
    long crashed = System.nanoTime();
    miniCluster.startTaskManager();
    producer.produce("changes", 120_000, 30_000, 20_000);
    producer.kafka.close();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (job.getJobStatus().get() != JobStatus.RUNNING) {
      assertThat(System.nanoTime()).as("job running again after the crash").isLessThan(deadline);
      Thread.sleep(200);
    }
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("crash of the task manager: every row indexed %d ms after it%n",
        (System.nanoTime() - crashed) / 1_000_000);
  }

  /**
   * One shard server paused (SIGSTOP) for a minute under load, its lanes bounded at 500 changes so that its backlog
   * (some 2,500 changes per lane) outgrows them, and the task manager crashed in the middle of it: the paused shards' changes wait on disk
   * (their lanes spill) while the other server's rows keep becoming searchable within seconds, Flink restores the
   * job from a checkpoint that names the spill files, and after SIGCONT every row is there exactly once within a
   * minute. {@code -Devenkeel.test.pauseSeconds=300} runs it with a five-minute pause.
   */
  @Test
  void aPausedShardServerDelaysOnlyTheWritesToIt(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
    addFlags("--sink-batch-size", "250", "--sink-lane-buffer", "500", "--sink-hot-buffer", "250",
        "--sink-spill-after-ms", "1000", "--sink-spill-dir", dir.resolve("spill").toString());
    long pauseNanos = TimeUnit.SECONDS.toNanos(Long.getLong("evenkeel.test.pauseSeconds", 60));
    Configuration configuration = restartingThreeTimes();
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(configuration);
    producer.produce("changes", 20_000, Integer.MAX_VALUE, 10_000);
    servers.get(1).pause();
    long paused = System.nanoTime();
    try {
      // At a rate the job keeps up with on two cores: what is measured is the paused server's effect, not a backlog.
      producer.produce("changes", 40_000, Integer.MAX_VALUE, 5_000);
      awaitRowsOfTheRunningServer(producer, paused, pauseNanos);
      try (Stream<Path> files = Files.walk(dir.resolve("spill"))) {
        assertThat(files.filter(Files::isRegularFile).count()).as("spill files of the paused shards").isPositive();
      }
      miniCluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
      miniCluster.startTaskManager();
      producer.produce("changes", 60_000, Integer.MAX_VALUE, 5_000);
      awaitRowsOfTheRunningServer(producer, paused, pauseNanos);
      while (System.nanoTime() - paused < pauseNanos) {
        assertThat(job.getJobStatus().get()).as("job status while a server is paused").isEqualTo(JobStatus.RUNNING);
        Thread.sleep(1_000);
      }
    } finally {
      servers.get(1).resume();
    }
    long resumed = System.nanoTime();
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    long caughtUp = (System.nanoTime() - resumed) / 1_000_000;
    System.out.printf("paused server: every row indexed %d ms after SIGCONT%n", caughtUp);
    assertThat(caughtUp).as("ms from SIGCONT until the paused shards' rows were searchable").isLessThan(60_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * Waits until every row produced so far that belongs on the running server (shards 0-3) is searchable there, which
   * must happen while the other is still paused.
   */
  private void awaitRowsOfTheRunningServer(Producer producer, long paused, long pauseNanos) throws Exception {
    long produced = System.nanoTime();
    RoutingPolicy policy = RoutingPolicy.dynamic(currentRules());
    long onRunningServer = producer.stream.expectedLiveRows().values().stream()
        .filter(row -> policy.shardFor(row.getTenantId(), row.getRowId(), row.getCreatedTime()) < 4).count();
    long docs = -1;
    while (docs != onRunningServer) {
      // Within the pause, however slow the machine: how soon is printed below, not asserted.
      assertThat(System.nanoTime() - paused).as("rows of shards 0-3 searchable while shards 4-7 are paused "
          + "(%d of %d)", docs, onRunningServer).isLessThan(pauseNanos - TimeUnit.SECONDS.toNanos(5));
      Thread.sleep(100);
      docs = 0;
      for (int shard = 0; shard < 4; shard++) {
        docs += servers.get(0).stub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      }
    }
    System.out.printf("paused server: the other server's %,d rows searchable %d ms after the last was produced%n",
        onRunningServer, (System.nanoTime() - produced) / 1_000_000);
  }

  /** A job Flink restarts from its last checkpoint, up to three times, a second apart. */
  private static Configuration restartingThreeTimes() {
    Configuration configuration = new Configuration();
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
    return configuration;
  }
}
