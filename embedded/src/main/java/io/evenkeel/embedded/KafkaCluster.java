package io.evenkeel.embedded;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;

/**
 * A KRaft Kafka cluster of several nodes, each a broker and a member of the controller quorum in its own JVM, on free
 * loopback ports: as a production cluster replicates, with topics of the brokers' defaults on three replicas (fewer
 * nodes: each) and {@code min.insync.replicas} 2, so a write acknowledged to {@code acks=all} outlives one lost node.
 */
public final class KafkaCluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private final List<KafkaBroker.Builder> builders;
  private final List<KafkaBroker> brokers;

  private KafkaCluster(List<KafkaBroker.Builder> builders, List<KafkaBroker> brokers) {
    this.builders = builders;
    this.brokers = brokers;
  }

  /** Starts {@code size} nodes, node {@code i}'s files in {@code dir/broker-<i>}, and waits until all serve. */
  public static KafkaCluster start(Path dir, int size) throws IOException, InterruptedException {
    int[] ports = FreePorts.pick(2 * size);
    String voters = IntStream.range(0, size).mapToObj(i -> (i + 1) + "@127.0.0.1:" + ports[2 * i + 1])
        .collect(Collectors.joining(","));
    String clusterId = KafkaBroker.newClusterId();
    List<KafkaBroker.Builder> builders = new ArrayList<>();
    List<KafkaBroker> brokers = new ArrayList<>();
    KafkaCluster cluster = new KafkaCluster(builders, brokers);
    try {
      for (int i = 0; i < size; i++) {
        builders.add(KafkaBroker.builder(dir.resolve("broker-" + i)).ports(ports[2 * i], ports[2 * i + 1])
            .heap("384m").quorum(i + 1, voters, clusterId, Math.min(3, size), Math.min(2, size)));
        brokers.add(builders.get(i).launch()); // all before any waits: a member serves once a majority runs
      }
      for (KafkaBroker broker : brokers) {
        broker.awaitReady(READY_TIMEOUT);
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** Every node's client address, as a client's {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return brokers.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
  }

  /** Node {@code i} (from 0) as it runs now. */
  public KafkaBroker broker(int i) {
    return brokers.get(i);
  }

  /** Kills node {@code i} with SIGKILL. */
  public void kill(int i) throws InterruptedException {
    brokers.get(i).process().kill();
  }

  /** Stops node {@code i} as an operator does (SIGTERM: a controlled shutdown moves its leaders first). */
  public void stop(int i) throws InterruptedException {
    brokers.get(i).close();
  }

  /** Starts node {@code i} again on its ports and data, and waits until it serves. */
  public KafkaBroker restart(int i) throws IOException, InterruptedException {
    brokers.set(i, builders.get(i).start());
    return brokers.get(i);
  }

  /**
   * Waits until every partition of every topic has all its replicas in sync, at most {@code timeout}: a node started
   * again has caught up, and the next may stop without a partition falling below {@code min.insync.replicas}.
   */
  public void awaitFullyReplicated(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000))) {
      while (true) {
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
            .get(10, TimeUnit.SECONDS);
        List<String> behind = new ArrayList<>();
        admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values().forEach(topic ->
            topic.partitions().stream().filter(p -> p.isr().size() < p.replicas().size())
                .forEach(p -> behind.add(topic.name() + "-" + p.partition())));
        if (behind.isEmpty()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("partitions still under-replicated after " + timeout + ": " + behind);
        }
        Thread.sleep(250);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (KafkaBroker broker : brokers) {
      broker.close();
    }
  }
}
