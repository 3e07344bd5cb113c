package io.evenkeel.benchmarks.rehearsal;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.FlinkSessionCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code docker/compose.yaml} and the {@link Rehearsal} describe one deployment: the same engines in the same numbers,
 * the same topic settings, shards, replicas, layout of the shard servers, and flags of the job and the query service.
 * The compose file is read with every variable at its default. One difference is by design: compose runs one
 * JobManager that Docker restarts, the rehearsal a standby beside it.
 */
class RehearsalComposeTest {
  private static final Path COMPOSE = Path.of(System.getProperty("user.dir")).getParent().resolve(
      "docker/compose.yaml");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{[A-Z0-9_]+(?::-([^}]*))?}");

  private static Map<String, Map<String, Object>> services;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void read() throws Exception {
    Matcher variable = VARIABLE.matcher(Files.readString(COMPOSE));
    StringBuilder defaults = new StringBuilder();
    while (variable.find()) {
      String fallback = variable.group(1) == null ? "" : variable.group(1);
      variable.appendReplacement(defaults, Matcher.quoteReplacement(fallback));
    }
    variable.appendTail(defaults);
    services = (Map<String, Map<String, Object>>) new Yaml().<Map<String, Object>>load(defaults.toString())
        .get("services");
  }

  @Test
  void theEnginesAreTheSameInTheSameNumbers() {
    assertThat(named("zookeeper-")).hasSize(Rehearsal.ZOOKEEPER_SERVERS);
    assertThat(named("kafka-")).hasSize(Rehearsal.KAFKA_NODES);
    assertThat(named("shard-server-")).hasSize(Rehearsal.SHARD_SERVERS);
    assertThat(((Map<?, ?>) services.get("taskmanager").get("deploy")).get("replicas"))
        .isEqualTo(Rehearsal.TASK_MANAGERS);
    assertThat(services.get("jobmanager").get("restart")).as("the JobManager Docker restarts").isNotNull();
    assertThat(named("query-service")).hasSize(Rehearsal.QUERY_SERVICES);
  }

  @Test
  void kafkaKeepsTopicsOnThreeNodesAndWritesOnTwo() {
    Map<?, ?> environment = (Map<?, ?>) services.get("kafka-1").get("environment");
    assertThat(environment.get("KAFKA_NUM_PARTITIONS").toString()).isEqualTo(Integer.toString(Rehearsal.PARTITIONS));
    // What KafkaCluster gives its nodes for three of them.
    assertThat(environment.get("KAFKA_DEFAULT_REPLICATION_FACTOR")).isEqualTo(3);
    assertThat(environment.get("KAFKA_MIN_INSYNC_REPLICAS")).isEqualTo(2);
  }

  @Test
  void flinkRunsTheJobWithTheSameSlotsParallelismAndHighAvailability() {
    String properties = (String) ((Map<?, ?>) services.get("jobmanager").get("environment")).get("FLINK_PROPERTIES");
    assertThat(properties).contains("taskmanager.numberOfTaskSlots: " + Rehearsal.TASK_SLOTS)
        .contains("parallelism.default: " + Rehearsal.PARALLELISM)
        .contains("high-availability.type: zookeeper");
    assertThat(properties.lines().map(String::strip).toList()).as("the rehearsal's cluster settings")
        .containsAll(FlinkSessionCluster.PLACEMENT).containsAll(FlinkSessionCluster.HIGH_AVAILABILITY);
    List<String> job = words(services.get("jobmanager").get("command"));
    assertThat(flagNames(job.subList(job.indexOf("--bootstrap-servers"), job.size())))
        .as("the job's flags").containsExactlyInAnyOrderElementsOf(flagNames(rehearsalJobFlags()));
    assertThat(value(job, "--shards")).isEqualTo(Integer.toString(Rehearsal.SHARDS));
    assertThat(value(job, "--placement")).isEqualTo("zookeeper");
    assertThat(value(job, "--policy")).isEqualTo(Rehearsal.POLICY);
    assertThat(value(job, "--parallelism")).isEqualTo(Integer.toString(Rehearsal.PARALLELISM));
    assertThat(value(job, "--topic")).isEqualTo(Rehearsal.TOPIC);
  }

  @Test
  void theShardServersHoldTheSameShardsWithTheSameReplicas() {
    for (int i = 0; i < Rehearsal.SHARD_SERVERS; i++) {
      List<String> server = words(services.get("shard-server-" + i).get("command"));
      assertThat(value(server, "--shards")).as("shard-server-%d", i).isEqualTo(Rehearsal.shardRange(i));
      assertThat(value(server, "--replicas")).isEqualTo(Integer.toString(Rehearsal.REPLICAS));
    }
    for (String service : named("query-service")) {
      List<String> query = words(services.get(service).get("command"));
      assertThat(value(query, "--shards")).as(service).isEqualTo(Integer.toString(Rehearsal.SHARDS));
      assertThat(value(query, "--placement")).as(service).isEqualTo("zookeeper");
      assertThat(value(query, "--policy")).as(service).isEqualTo(Rehearsal.POLICY);
      assertThat(value(query, "--allowed-hosts")).as(service).contains(services.get(service).get("hostname")
          .toString());
    }
  }

  private static List<String> named(String prefix) {
    return services.keySet().stream().filter(name -> name.startsWith(prefix)).toList();
  }

  /** The job flags the rehearsal submits, with placeholder addresses. */
  private static List<String> rehearsalJobFlags() {
    return Rehearsal.jobFlags("kafka:9092", "zookeeper:2181", Path.of("/checkpoints"));
  }

  private static List<String> words(Object command) {
    return List.of(command.toString().trim().split("\\s+"));
  }

  private static List<String> flagNames(List<String> words) {
    List<String> names = new ArrayList<>();
    words.stream().filter(word -> word.startsWith("--")).forEach(names::add);
    return names;
  }

  private static String value(List<String> words, String flag) {
    int at = words.indexOf(flag);
    assertThat(at).as("%s in %s", flag, words).isNotNegative();
    return words.get(at + 1);
  }
}
