package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/** The ingest job through a ZooKeeper outage and a Kafka broker restart: it stops nothing for good, loses nothing. */
class IngestJobOutagesIT extends IngestJobHarness {
  /**
   * ZooKeeper stopped for 45 s in the middle of a stream, while a tenant turns hot: the routers stop routing and wait
   * and the hot tenant's proposal times out as aborted (the job neither fails nor restarts; checkpoints that cannot
   * pass the wait expire), and once ZooKeeper is back every row arrives.
   */
  @Test
  void aZooKeeperOutageDuringIngestStopsNothingForGood() throws Exception {
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    producer.produce("changes", 30_000, Integer.MAX_VALUE, 15_000);
    zookeeper.stop();
    long stopped = System.nanoTime();
    // A tenant turns hot during the outage: its proposal cannot reach ZooKeeper and must not block or fail the job.
    producer.produce("changes", 60_000, 30_000, 15_000);
    producer.kafka.flush();
    // Far longer than 3T (the rule protocol's wait) and shorter than the ZooKeeper session.
    while (System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(25)) {
      assertThat(job.getJobStatus().get()).as("job status during the outage").isEqualTo(JobStatus.RUNNING);
      Thread.sleep(1_000);
    }
    zookeeper.restart();
    long restarted = System.nanoTime();
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("ZooKeeper outage of 25 s: every row indexed %d ms after it came back%n",
        (System.nanoTime() - restarted) / 1_000_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /** The Kafka broker restarted in the middle of a stream: the job rides it out, and every row arrives once. */
  @Test
  void aKafkaBrokerRestartDuringIngestLosesNothing() throws Exception {
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    producer.produce("changes", 30_000, Integer.MAX_VALUE, 15_000);
    producer.kafka.flush();
    kafka.close();
    Thread.sleep(10_000);
    assertThat(job.getJobStatus().get()).as("job status with the broker down").isEqualTo(JobStatus.RUNNING);
    kafka = kafkaBroker.start();
    long restarted = System.nanoTime();
    producer.produce("changes", 60_000, Integer.MAX_VALUE, 15_000);
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("Kafka broker restart: every row indexed %d ms after it came back%n",
        (System.nanoTime() - restarted) / 1_000_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }
}
