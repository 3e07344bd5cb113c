package io.evenkeel.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A real single-node KRaft Kafka (broker and controller) in its own JVM, from the Kafka jars on the test classpath,
 * on free loopback ports.
 */
public final class KafkaBroker implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private KafkaBroker(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  public static KafkaBroker start(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int port = freePort();
    int controllerPort = freePort();
    Path config = dir.resolve("server.properties");
    Properties properties = new Properties();
    properties.putAll(Map.ofEntries(
        Map.entry("process.roles", "broker,controller"),
        Map.entry("node.id", "1"),
        Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
        Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort),
        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port),
        Map.entry("controller.listener.names", "CONTROLLER"),
        Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
        Map.entry("log.dirs", dir.resolve("logs").toString()),
        Map.entry("num.partitions", "4"),
        Map.entry("offsets.topic.replication.factor", "1"),
        Map.entry("offsets.topic.num.partitions", "4"),
        Map.entry("transaction.state.log.replication.factor", "1"),
        Map.entry("transaction.state.log.min.isr", "1"),
        Map.entry("group.initial.rebalance.delay.ms", "0"),
        Map.entry("auto.create.topics.enable", "true")));
    try (var out = Files.newOutputStream(config)) {
      properties.store(out, "Evenkeel test broker");
    }
    Path log = dir.resolve("broker.log");
    Process format = new ProcessBuilder(java("kafka.tools.StorageTool", "format", "-t",
        UUID.randomUUID().toString().replace("-", "").substring(0, 22), "-c", config.toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve("format.log").toFile()).start();
    if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
      throw new IOException("kafka storage format failed:\n" + Files.readString(dir.resolve("format.log")));
    }
    Process broker = new ProcessBuilder(java("kafka.Kafka", config.toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    KafkaBroker started = new KafkaBroker(broker, port, log);
    started.awaitReady();
    return started;
  }

  private static List<String> java(String mainClass, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", System.getProperty("java.class.path"),
        mainClass));
    command.addAll(List.of(args));
    return command;
  }

  private void awaitReady() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("kafka broker exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try (Admin admin = admin()) {
        admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
        return;
      } catch (Exception notYet) {
        Thread.sleep(200);
      }
    }
    close();
    throw new IOException("kafka broker not ready within 60 s:\n" + Files.readString(log));
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
  }

  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
