package io.evenkeel.launcher.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * {@code docker/} checked without a Docker engine (none runs on these machines): the compose file read as Compose
 * reads it (anchors, merge keys, {@code ${VAR:-default}} with every variable unset), its services, images, ports,
 * volumes and environment, and every Evenkeel command in it run as its image would run it, with {@code --help} added
 * (the jar and main class the image copies from the build start), and its flags parsed by the program's command. Where Debian's {@code docker-compose} is installed, it validates the file too.
 */
class DockerFilesTest {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();
  private static final Path DOCKER = REPO.resolve("docker");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)(?::-([^}]*))?}");
  private static final String ZOOKEEPER = "zookeeper-1:2181,zookeeper-2:2181,zookeeper-3:2181";

  private static Map<String, Map<String, Object>> services;
  private static Map<String, Object> compose;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void read() throws IOException {
    compose = new Yaml().load(interpolate(Files.readString(DOCKER.resolve("compose.yaml"))));
    services = (Map<String, Map<String, Object>>) compose.get("services");
  }

  @Test
  void theServicesOfARealDeploymentAreThere() {
    assertThat(services).containsOnlyKeys("zookeeper-1", "zookeeper-2", "zookeeper-3", "kafka-1", "kafka-2",
        "kafka-3", "shard-server-0",
        "shard-server-1", "shard-server-2", "jobmanager", "taskmanager", "query-service", "query-service-2", "mysql",
        "cdc");
    services.forEach((name, service) -> assertThat(service.get("image")).as("%s's image", name).isNotNull());
    assertThat(services.get("mysql").get("profiles")).as("MySQL only with --profile cdc").isEqualTo(List.of("cdc"));
    assertThat(services.get("cdc").get("profiles")).isEqualTo(List.of("cdc"));
  }

  @Test
  void imagesAreTheVersionsTheBuildPins() throws IOException {
    String pom = Files.readString(REPO.resolve("pom.xml"));
    assertThat(services.get("zookeeper-1").get("image")).isEqualTo("zookeeper:" + property(pom, "zookeeper.version"));
    for (int i = 1; i <= 3; i++) {
      assertThat(services.get("kafka-" + i).get("image")).isEqualTo("apache/kafka:" + property(pom, "kafka.version"));
    }
    assertThat(Files.readString(DOCKER.resolve("flink.Dockerfile")))
        .contains("FROM flink:" + property(pom, "flink.version") + "-java17");
    assertThat(Files.readString(DOCKER.resolve("evenkeel.Dockerfile"))).contains("FROM eclipse-temurin:17-jre");
  }

  @Test
  @SuppressWarnings("unchecked")
  void kafkaIsThreeNodesThatReplicateEveryTopicAndEveryClientKnowsThemAll() {
    Set<Object> clusterIds = new HashSet<>();
    for (int i = 1; i <= 3; i++) {
      Map<String, Object> environment = (Map<String, Object>) services.get("kafka-" + i).get("environment");
      assertThat(environment.get("KAFKA_NODE_ID")).isEqualTo(i);
      assertThat(environment.get("KAFKA_ADVERTISED_LISTENERS")).isEqualTo("INTERNAL://kafka-" + i + ":9092");
      assertThat(environment.get("KAFKA_CONTROLLER_QUORUM_VOTERS"))
          .isEqualTo("1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093");
      assertThat(environment).containsEntry("KAFKA_DEFAULT_REPLICATION_FACTOR", 3)
          .containsEntry("KAFKA_MIN_INSYNC_REPLICAS", 2).containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", 3);
      clusterIds.add(environment.get("CLUSTER_ID"));
    }
    assertThat(clusterIds).as("one cluster id for the three nodes").hasSize(1).doesNotContainNull();
    for (String client : List.of("jobmanager", "query-service", "cdc")) {
      assertThat(String.valueOf(services.get(client).get("command"))).as("%s's brokers", client)
          .contains("--bootstrap-servers kafka-1:9092,kafka-2:9092,kafka-3:9092");
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void zooKeeperIsAnEnsembleOfThreeAndEveryVolumeIsDeclared() {
    List<Object> ids = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Map<String, Object> environment = (Map<String, Object>) services.get("zookeeper-" + i).get("environment");
      ids.add(environment.get("ZOO_MY_ID"));
      assertThat(environment.get("ZOO_SERVERS").toString()).contains("server.1=zookeeper-1:2888:3888;2181",
          "server.2=zookeeper-2:2888:3888;2181", "server.3=zookeeper-3:2888:3888;2181");
    }
    assertThat(ids).containsExactly(1, 2, 3);
    Map<String, Object> declared = (Map<String, Object>) compose.get("volumes");
    services.forEach((name, service) -> {
      for (Object volume : (List<Object>) service.getOrDefault("volumes", List.of())) {
        String source = volume.toString().split(":")[0];
        if (source.startsWith("./")) {
          assertThat(DOCKER.resolve(source)).as("%s's bind mount %s", name, source).exists();
        } else {
          assertThat(declared).as("%s's volume %s", name, source).containsKey(source);
        }
      }
    });
    for (int i = 0; i < 3; i++) {
      assertThat((List<Object>) services.get("shard-server-" + i).get("volumes"))
          .containsExactly("shard-server-" + i + "-data:/data");
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void publishedPortsBindLoopbackByDefault() {
    List<String> published = new ArrayList<>();
    services.forEach((name, service) -> ((List<Object>) service.getOrDefault("ports", List.of()))
        .forEach(port -> published.add(name + " " + port)));
    assertThat(published).containsExactlyInAnyOrder("jobmanager 127.0.0.1:8081:8081",
        "query-service 127.0.0.1:8080:8080", "query-service-2 127.0.0.1:8082:8080");
  }

  @Test
  void theShardServersLayOutEveryShardOnceAndEveryoneAgreesOnTheirNumber() {
    int shards = Integer.parseInt(flag(command("query-service"), "--shards"));
    assertThat(flag(command("jobmanager"), "--shards")).isEqualTo(Integer.toString(shards));
    List<Integer> laidOut = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<String> command = command("shard-server-" + i);
      String[] range = flag(command, "--shards").split("-");
      for (int shard = Integer.parseInt(range[0]); shard <= Integer.parseInt(range[range.length - 1]); shard++) {
        laidOut.add(shard);
      }
      assertThat(flag(command, "--host")).as("the address it registers, which the others reach")
          .isEqualTo("shard-server-" + i);
    }
    assertThat(laidOut).containsExactlyElementsOf(new TreeSet<>(laidOut)).hasSize(shards).startsWith(0);
    for (String service : List.of("shard-server-0", "jobmanager", "query-service", "query-service-2")) {
      assertThat(flag(command(service), "--zookeeper")).as(service).isEqualTo(ZOOKEEPER);
    }
  }

  @Test
  void everyEvenkeelCommandNamesABuiltJarAndMainClassAndFlagsItsProgramAccepts() throws Exception {
    Map<String, Path> copied = copies("evenkeel.Dockerfile");
    for (String service : List.of("shard-server-0", "shard-server-1", "shard-server-2", "query-service",
        "query-service-2")) {
      List<String> command = command(service);
      assertThat(command.get(0)).isEqualTo("java");
      int jar = command.indexOf("-jar");
      Path hostJar = copied.get(command.get(jar + 1));
      assertThat(hostJar).as("%s: %s copied by the image", service, command.get(jar + 1)).isNotNull();
      assertAcceptsFlags(service, hostJar.toString(), mainClass(hostJar), command.subList(jar + 2, command.size()));
    }

    // The CDC runner: the class from the image's cdc directory.
    List<String> cdc = command("cdc");
    assertThat(cdc.get(0)).isEqualTo("java");
    assertThat(cdc.get(cdc.indexOf("-cp") + 1)).isEqualTo("/opt/evenkeel/cdc/*");
    assertThat(copied.get("/opt/evenkeel/cdc/")).isEqualTo(REPO.resolve("cdc/target/lib"));
    String cdcJar = REPO.resolve("cdc/target/evenkeel-cdc-0.1.0-SNAPSHOT.jar").toString();
    assertThat(copied.values()).contains(Path.of(cdcJar));
    int cdcMain = cdc.indexOf("-cp") + 2;
    assertAcceptsFlags("cdc", cdcJar + ":" + REPO.resolve("cdc/target/lib") + "/*", cdc.get(cdcMain),
        cdc.subList(cdcMain + 1, cdc.size()));

    // The ingest job: Flink's application entry point with the job's class, from the jar in usrlib.
    List<String> jobmanager = command("jobmanager");
    assertThat(jobmanager.get(0)).isEqualTo("standalone-job");
    String jobClass = flag(jobmanager, "--job-classname");
    Path jobJar = copies("flink.Dockerfile").get("/opt/flink/usrlib/ingest-job.jar");
    assertThat(jobJar).isEqualTo(REPO.resolve("ingest-job/target/ingest-job.jar"));
    try (JarFile jar = new JarFile(jobJar.toFile())) {
      assertThat(jar.getEntry(jobClass.replace('.', '/') + ".class")).as("%s in %s", jobClass, jobJar).isNotNull();
    }
    // The job jar leaves Flink out (the image has it): its flags are checked on the classpath bin/evenkeel uses.
    List<String> jobArgs = jobmanager.subList(jobmanager.indexOf("--job-classname") + 2, jobmanager.size());
    assertAcceptsFlags("jobmanager", REPO.resolve("ingest-job/target/evenkeel-ingest-job-0.1.0-SNAPSHOT.jar") + ":"
        + REPO.resolve("ingest-job/target/lib") + "/*", jobClass, jobArgs);
    assertThat(command("taskmanager")).containsExactly("taskmanager");
  }

  /**
   * No password is written in the compose file: MySQL's root password and the CDC runner's come from files
   * make-secrets.sh makes (random, owner-only, kept once made), and the runner connects as its own user, not root.
   */
  @Test
  @SuppressWarnings("unchecked")
  void passwordsComeFromGeneratedSecretFilesAndCdcHasItsOwnUser(@TempDir Path secrets) throws Exception {
    String file = Files.readString(DOCKER.resolve("compose.yaml"));
    assertThat(file).doesNotContain("MYSQL_ROOT_PASSWORD:").doesNotContain("user=root");
    Map<String, Object> mysql = (Map<String, Object>) services.get("mysql").get("environment");
    assertThat(mysql.get("MYSQL_ROOT_PASSWORD_FILE")).isEqualTo("/run/secrets/mysql-root-password");
    assertThat(flag(command("cdc"), "--password-file")).isEqualTo("/run/secrets/cdc-password");
    assertThat(flag(command("cdc"), "--source")).endsWith("?user=evenkeel_cdc");
    assertThat(Files.readString(DOCKER.resolve("mysql-init/cdc-user.sh")))
        .contains("CREATE USER 'evenkeel_cdc'@'%'", "$(cat /run/secrets/cdc-password)")
        .contains("GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.*");
    assertThat(((Map<String, Object>) compose.get("secrets")).keySet())
        .containsExactlyInAnyOrder("mysql-root-password", "cdc-password");

    Path dir = secrets.resolve("secrets");
    List<String> made = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      ProcessBuilder makeSecrets = new ProcessBuilder("sh", DOCKER.resolve("make-secrets.sh").toString())
          .redirectErrorStream(true);
      makeSecrets.environment().put("EVENKEEL_SECRETS_DIR", dir.toString());
      Process process = makeSecrets.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as(output).isZero();
      made.add(Files.readString(dir.resolve("mysql-root-password")) + " "
          + Files.readString(dir.resolve("cdc-password")));
    }
    assertThat(made.get(1)).as("kept once made").isEqualTo(made.get(0));
    assertThat(made.get(0)).matches("[0-9a-f]{32} [0-9a-f]{32}");
    for (String name : List.of("mysql-root-password", "cdc-password")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(name))))
          .isEqualTo("rw-------");
    }
  }

  @Test
  void composeValidatesTheFileWhereItIsInstalled() throws Exception {
    Path composeBinary = Path.of("/usr/bin/docker-compose");
    if (!Files.isExecutable(composeBinary)) {
      return; // Debian's docker-compose (v1) reads a file offline; .ci/run does not install it
    }
    Process process = new ProcessBuilder(composeBinary.toString(), "-f", DOCKER.resolve("compose.yaml").toString(),
        "config", "--quiet").redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }

  /**
   * Runs {@code mainClass} on {@code classpath} with {@code flags} and {@code --help}, which must print its usage
   * (the class starts from what the image holds), then parses {@code flags} with the program's own picocli command:
   * with {@code --help} picocli overlooks an unknown flag, a parse alone does not.
   */
  private static void assertAcceptsFlags(String service, String classpath, String mainClass, List<String> flags)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classpath, mainClass));
    command.addAll(flags);
    command.add("--help");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s: %s %s --help\n%s", service, mainClass, flags, output).isZero();
    assertThat(output).as(service).contains("Usage:");

    Constructor<?> constructor = Class.forName(mainClass).getDeclaredConstructor();
    constructor.setAccessible(true);
    try {
      new CommandLine(constructor.newInstance()).parseArgs(flags.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new AssertionError(service + ": " + mainClass + " refuses " + flags + ": " + e.getMessage(), e);
    }
  }

  private static String mainClass(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.getManifest().getMainAttributes().getValue("Main-Class");
    }
  }

  /** A Dockerfile's COPY lines: where in the image, from where in the repository (which must exist: built). */
  private static Map<String, Path> copies(String dockerfile) throws IOException {
    Map<String, Path> copies = new HashMap<>();
    for (String line : Files.readAllLines(DOCKER.resolve(dockerfile))) {
      if (line.startsWith("COPY ")) {
        List<String> words = words(line).stream().filter(word -> !word.startsWith("--")).toList();
        Path source = REPO.resolve(words.get(1));
        assertThat(source).as("%s copies %s, which the build makes", dockerfile, words.get(1)).exists();
        String target = words.get(2);
        copies.put(target.endsWith("/") && !words.get(1).endsWith("/")
            ? target + source.getFileName() : target, source);
      }
    }
    return copies;
  }

  private static List<String> command(String service) {
    return words(services.get(service).get("command").toString());
  }

  private static String flag(List<String> command, String name) {
    int at = command.indexOf(name);
    assertThat(at).as("%s in %s", name, command).isNotNegative();
    return command.get(at + 1);
  }

  /** Splits a command as Compose does (shell words: blanks separate, quotes group and are removed). */
  static List<String> words(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (char c : command.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }

  /** Compose's interpolation with no variable set: {@code ${VAR:-default}} is the default, {@code $$} a dollar. */
  private static String interpolate(String text) {
    Matcher matcher = VARIABLE.matcher(text);
    StringBuilder result = new StringBuilder();
    while (matcher.find()) {
      matcher.appendReplacement(result, Matcher.quoteReplacement(matcher.group(2) == null ? "" : matcher.group(2)));
    }
    matcher.appendTail(result);
    return result.toString().replace("$$", "$");
  }

  private static String property(String pom, String name) {
    Matcher matcher = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
    assertThat(matcher.find()).as(name).isTrue();
    return matcher.group(1);
  }
}
