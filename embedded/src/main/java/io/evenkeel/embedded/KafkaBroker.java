package io.evenkeel.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A real KRaft Kafka node (broker and controller) in its own JVM, from the Kafka jars on this JVM's classpath, on
 * loopback: on free ports ({@link #start(Path)}, for tests) or fixed ones ({@link #builder}, for the local stack); a
 * cluster of one, or a member of a quorum ({@link KafkaCluster}). A directory formatted by an earlier run is reused
 * with its data.
 */
public final class KafkaBroker implements AutoCloseable {
  private final ChildProcess process;
  private final int port;
  /** What a client needs besides the address: SASL settings when the broker takes only SASL clients. */
  private final Map<String, String> clientProperties;

  private KafkaBroker(ChildProcess process, int port, Map<String, String> clientProperties) {
    this.process = process;
    this.port = port;
    this.clientProperties = clientProperties;
  }

  /** A broker on free ports, logging to {@code dir/broker.log}. */
  public static KafkaBroker start(Path dir) throws IOException, InterruptedException {
    return builder(dir).freePorts().start();
  }

  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** Where the broker lives and listens; {@link #start} checks the settings, formats storage once and waits. */
  public static final class Builder {
    private final Path dir;
    private int port = -1;
    private int controllerPort = -1;
    private Path log;
    private String heap = "512m";
    // Generous: on two cores shared with a test suite's other servers, a broker has been seen to need over a minute.
    private Duration readyTimeout = Duration.ofSeconds(120);
    private int saslPort = -1;
    private String saslUser;
    private String saslPassword;
    private boolean saslOnly;
    private int nodeId = 1;
    /** The quorum's voters ({@code id@host:port,...}); null: this node alone. */
    private String voters;
    /** The cluster id every member is formatted with; null: a new one. */
    private String clusterId;
    private int replicationFactor = 1;
    private int minInsyncReplicas = 1;

    private Builder(Path dir) {
      this.dir = dir;
      this.log = dir.resolve("broker.log");
    }

    /** The client (PLAINTEXT) port and the KRaft controller port. */
    public Builder ports(int port, int controllerPort) {
      this.port = port;
      this.controllerPort = controllerPort;
      return this;
    }

    /** Two ports free at the time of the call, one for clients and one for the controller. */
    public Builder freePorts() throws IOException {
      int[] free = FreePorts.pick(2);
      return ports(free[0], free[1]);
    }

    public Builder log(Path value) {
      this.log = value;
      return this;
    }

    public Builder heap(String value) {
      this.heap = value;
      return this;
    }

    /**
     * A second listener on {@code port} that takes only SASL/PLAIN clients authenticating as {@code user} with
     * {@code password} (clients of the PLAINTEXT port need none).
     */
    public Builder saslPlain(int port, String user, String password) {
      this.saslPort = port;
      this.saslUser = user;
      this.saslPassword = password;
      return this;
    }

    /**
     * Every listener, the client port's and the controller's, takes only SASL/PLAIN peers authenticating as {@code
     * user} with {@code password} (the broker itself included): a local process without them can neither produce,
     * consume, move a group's offsets nor speak to the controller.
     */
    public Builder saslOnly(String user, String password) {
      this.saslOnly = true;
      this.saslUser = user;
      this.saslPassword = password;
      return this;
    }

    public Builder readyTimeout(Duration value) {
      this.readyTimeout = value;
      return this;
    }

    /**
     * Node {@code nodeId} of a cluster whose controller quorum is {@code voters} ({@code 1@127.0.0.1:port,...}), all
     * formatted with {@code clusterId}; topics made with the broker's defaults (the job's, the consumer offsets')
     * get {@code replicationFactor} replicas, and a write acknowledged to {@code acks=all} is on
     * {@code minInsyncReplicas} of them.
     */
    public Builder quorum(int nodeId, String voters, String clusterId, int replicationFactor, int minInsyncReplicas) {
      this.nodeId = nodeId;
      this.voters = voters;
      this.clusterId = clusterId;
      this.replicationFactor = replicationFactor;
      this.minInsyncReplicas = minInsyncReplicas;
      return this;
    }

    /** Starts the node and waits until it serves (a quorum's member needs a majority of the others started). */
    public KafkaBroker start() throws IOException, InterruptedException {
      KafkaBroker started = launch();
      started.awaitReady(readyTimeout);
      return started;
    }

    /** Starts the node without waiting for it. */
    KafkaBroker launch() throws IOException {
      if (port <= 0 || port > 65535 || controllerPort <= 0 || controllerPort > 65535 || port == controllerPort) {
        throw new IllegalArgumentException("kafka needs two distinct ports in [1, 65535]; got: " + port + " and "
            + controllerPort);
      }
      if (saslPort == port || saslPort == controllerPort) {
        throw new IllegalArgumentException("kafka's SASL port " + saslPort + " is one of its other ports");
      }
      Files.createDirectories(dir);
      Path config = dir.resolve("server.properties");
      Properties properties = new Properties();
      properties.putAll(Map.ofEntries(
          Map.entry("process.roles", "broker,controller"),
          Map.entry("node.id", Integer.toString(nodeId)),
          Map.entry("controller.quorum.voters", voters != null ? voters : nodeId + "@127.0.0.1:" + controllerPort),
          Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort),
          Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port),
          Map.entry("controller.listener.names", "CONTROLLER"),
          Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
          Map.entry("log.dirs", dir.resolve("logs").toAbsolutePath().toString()),
          Map.entry("num.partitions", "4"),
          Map.entry("default.replication.factor", Integer.toString(replicationFactor)),
          Map.entry("min.insync.replicas", Integer.toString(minInsyncReplicas)),
          Map.entry("offsets.topic.replication.factor", Integer.toString(replicationFactor)),
          Map.entry("offsets.topic.num.partitions", "4"),
          Map.entry("transaction.state.log.replication.factor", Integer.toString(replicationFactor)),
          Map.entry("transaction.state.log.min.isr", Integer.toString(minInsyncReplicas)),
          Map.entry("group.initial.rebalance.delay.ms", "0"),
          Map.entry("auto.create.topics.enable", "true")));
      if (saslPort > 0) {
        properties.put("listeners", properties.get("listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
        properties.put("advertised.listeners", properties.get("advertised.listeners") + ",SASL_PLAINTEXT://127.0.0.1:"
            + saslPort);
        properties.put("listener.security.protocol.map", properties.get("listener.security.protocol.map")
            + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
        properties.put("sasl.enabled.mechanisms", "PLAIN");
        properties.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
            plainLogin("user_" + saslUser + "=\"" + saslPassword + "\""));
      }
      Map<String, String> clientProperties = Map.of();
      if (saslOnly) {
        String jaas = plainLogin("username=\"" + saslUser + "\" password=\"" + saslPassword + "\" user_" + saslUser
            + "=\"" + saslPassword + "\"");
        properties.put("listeners", "SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        properties.put("advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port);
        properties.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        properties.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        properties.put("sasl.enabled.mechanisms", "PLAIN");
        properties.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        properties.put("sasl.mechanism.controller.protocol", "PLAIN");
        properties.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas);
        properties.put("listener.name.controller.plain.sasl.jaas.config", jaas);
        clientProperties = saslClient(saslUser, saslPassword);
      }
      // Owner-only from its creation: with SASL it holds the password.
      Files.deleteIfExists(config);
      Files.createFile(config, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (var out = Files.newOutputStream(config)) {
        properties.store(out, "Evenkeel single-node broker");
      }
      // Formatting twice fails ("already formatted"); a restart on the same directory keeps its cluster and data.
      if (!Files.exists(dir.resolve("logs").resolve("meta.properties"))) {
        format(config);
      }
      ChildProcess broker = JavaCommand.mainClass("kafka.Kafka").jarsOnly().heap(heap).quickCompiler()
          .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn").args(config.toString())
          .start(voters == null ? "kafka" : "kafka-" + nodeId, log);
      return new KafkaBroker(broker, port, clientProperties);
    }

    /**
     * Kafka's storage format, in this JVM: its {@code StorageTool} returns instead of exiting, and a JVM of its own
     * would cost a second of CPU per broker start. Its output goes to {@code format.log}.
     */
    private void format(Path config) throws IOException {
      ByteArrayOutputStream output = new ByteArrayOutputStream();
      int code;
      try (PrintStream print = new PrintStream(output, true, StandardCharsets.UTF_8)) {
        code = StorageTool.execute(new String[] {"format", "-t",
            clusterId != null ? clusterId : newClusterId(), "-c", config.toString()}, print);
      } catch (RuntimeException e) {
        throw new IOException("kafka storage format failed: " + e + "; " + output.toString(StandardCharsets.UTF_8), e);
      } finally {
        Files.write(dir.resolve("format.log"), output.toByteArray());
      }
      if (code != 0) {
        throw new IOException("kafka storage format failed with code " + code + ": "
            + output.toString(StandardCharsets.UTF_8));
      }
    }
  }

  /** A cluster id for {@code kafka-storage format}: 22 characters. */
  static String newClusterId() {
    return UUID.randomUUID().toString().replace("-", "").substring(0, 22);
  }

  /** Waits until the node serves clients, at most {@code timeout}. */
  void awaitReady(Duration timeout) throws IOException, InterruptedException {
    // One client for the whole wait, each probe given 10 s: a new client per probe spends its first seconds on
    // bootstrap, and on a busy machine a probe cut short at 2 s never saw a broker that had long been serving.
    try (Admin probe = admin()) {
      process.awaitReady(timeout, () -> {
        probe.describeCluster().nodes().get(10, TimeUnit.SECONDS);
        return true;
      });
    }
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The client properties besides the address: SASL's for a {@link Builder#saslOnly} broker, else none. */
  public Map<String, String> clientProperties() {
    return clientProperties;
  }

  /** A SASL/PLAIN client's properties, authenticating as {@code user}. */
  public static Map<String, String> saslClient(String user, String password) {
    return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN", "sasl.jaas.config",
        plainLogin("username=\"" + user + "\" password=\"" + password + "\""));
  }

  /** A JAAS entry of Kafka's PLAIN login module with {@code options}. */
  private static String plainLogin(String options) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required " + options + ";";
  }

  public int port() {
    return port;
  }

  /** The broker's JVM, for supervision. */
  public ChildProcess process() {
    return process;
  }

  public Admin admin() {
    Map<String, Object> config = new HashMap<>(clientProperties);
    config.putAll(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    return Admin.create(config);
  }

  /**
   * Creates the topic and returns once every partition has a leader: a producer that starts before then meets
   * NOT_LEADER_OR_FOLLOWER, and its idempotent retries can then be refused as out of sequence until its batches
   * expire, losing them.
   */
  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = admin()) {
      // The broker's replication factor: 1 alone, the cluster's in a quorum.
      admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty()))).all()
          .get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!hasLeaders(admin, name)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + name + " has partitions without a leader after 60 s");
        }
        Thread.sleep(50);
      }
    }
  }

  /** Whether every partition of the topic has a leader; false while the broker's metadata does not list it yet. */
  private static boolean hasLeaders(Admin admin, String name) throws Exception {
    try {
      return admin.describeTopics(List.of(name)).allTopicNames().get(30, TimeUnit.SECONDS).get(name).partitions()
          .stream().allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false; // created by the controller, not yet in the broker's metadata
      }
      throw e;
    }
  }

  /** Creates the topic unless it exists (a restarted stack finds its topics). */
  public void ensureTopic(String name, int partitions) throws Exception {
    ensureTopic(name, partitions, Map.of());
  }

  /** Creates the topic, with these topic configs ({@code retention.ms=-1}), unless it exists. */
  public void ensureTopic(String name, int partitions, Map<String, String> configs) throws Exception {
    try (Admin admin = admin()) {
      if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(name)) {
        NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(configs);
        admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.stop(Duration.ofSeconds(20));
  }
}
