package io.evenkeel.embedded;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

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

  /** Starts node {@code i} again on its ports and data, and waits until it serves. */
  public KafkaBroker restart(int i) throws IOException, InterruptedException {
    brokers.set(i, builders.get(i).start());
    return brokers.get(i);
  }

  @Override
  public void close() throws InterruptedException {
    for (KafkaBroker broker : brokers) {
      broker.close();
    }
  }
}
