package io.evenkeel.ingest;

import io.evenkeel.embedded.KafkaCluster;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * The job on a replicated Kafka: three KRaft nodes, every topic (the changes, the job's own, the consumer offsets) on
 * three replicas with {@code min.insync.replicas} 2, the test's producer sending with {@code acks=all} (the Kafka
 * client's default, as the loader's and the CDC runner's). One node killed with SIGKILL under load, its partitions'
 * leaders move; then it comes back. No acknowledged change is lost and none is written twice.
 */
class KafkaBrokerLossIT extends IngestJobHarness {
  private KafkaCluster cluster;

  @Override
  List<String> startKafka() throws Exception {
    cluster = KafkaCluster.start(dir.resolve("kafka"), 3);
    kafka = cluster.broker(0); // the test's own clients bootstrap from it; another node is killed
    return List.of("--bootstrap-servers", cluster.bootstrapServers());
  }

  @Override
  void stopKafka() throws Exception {
    cluster.close();
  }

  @Test
  void aKafkaNodeKilledUnderLoadLosesAndRepeatsNoAcknowledgedChange() throws Exception {
    JobClient job = submit(new Configuration());
    Producer producer = new Producer(cluster.bootstrapServers());
    producer.produce("changes", 20_000, Integer.MAX_VALUE, 10_000);
    cluster.kill(2);
    long killed = System.nanoTime();
    producer.produce("changes", 40_000, Integer.MAX_VALUE, 10_000);
    long producedAfterKill = System.nanoTime();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    long indexed = System.nanoTime();
    cluster.restart(2);
    producer.produce("changes", 50_000, Integer.MAX_VALUE, 10_000);
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("Kafka node killed under load: 20,000 changes sent in %d ms after it, every row indexed %d ms "
        + "after the kill; the node back, 10,000 more indexed%n", (producedAfterKill - killed) / 1_000_000,
        (indexed - killed) / 1_000_000);
  }
}
