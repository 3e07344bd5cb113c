package io.evenkeel.embedded;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A standalone Flink session cluster as separate JVMs on loopback, as a user's cluster runs: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and task managers ({@code TaskManagerRunner}), each with {@code --configDir}
 * holding the {@code config.yaml} written here, on the classpath of a Flink distribution's {@code lib/} (the jars of
 * the {@code flink-lib} module: Flink alone, none of Evenkeel's); with several JobManagers in Flink's ZooKeeper high
 * availability, one leading and the others standing by. Jobs reach it through its REST API.
 */
public final class FlinkSessionCluster implements AutoCloseable {
  private static final Pattern TASK_MANAGERS = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)");
  private static final String JOB_MANAGER = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  private static final String TASK_MANAGER = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
  /** How a cluster spreads a job, whatever its high availability (docker/compose.yaml's cluster sets it too). */
  public static final List<String> PLACEMENT = List.of(
      // A job's slots spread over the task managers: a lost one takes part of every job, not all of one.
      "taskmanager.load-balance.mode: SLOTS");
  /** How a cluster in ZooKeeper high availability fails over (docker/compose.yaml's cluster sets it too). */
  public static final List<String> HIGH_AVAILABILITY = List.of(
      // A JobManager whose ZooKeeper server is lost moves its session to another server of the ensemble; without
      // this it gives up its leadership at the first lost connection, and every job restarts.
      "high-availability.zookeeper.client.tolerate-suspended-connections: true",
      // A killed leader leads until ZooKeeper expires its session: 10 s (as the shard servers'), not Flink's 60.
      "high-availability.zookeeper.client.session-timeout: 10000",
      // A task manager that loses its JobManager keeps the job's slots, and with them the job's loaded and compiled
      // classes, until the standby's job master takes them back (the session above and its start); after Flink's 10 s
      // it would free them, close the job's class loader, and every task would load the job's classes anew.
      "taskmanager.slot.timeout: 60 s");

  private final Path dir;
  private final String classpath;
  private final List<String> jvmOptions;
  private final List<Integer> restPorts = new ArrayList<>();
  private final List<ChildProcess> jobManagers = new ArrayList<>();
  /** How JobManager i starts (its configuration directory names its ports), to start it again. */
  private final List<JavaCommand> jobManagerCommands = new ArrayList<>();
  private final List<ChildProcess> taskManagers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  private FlinkSessionCluster(Path dir, String classpath, List<String> jvmOptions) {
    this.dir = dir;
    this.classpath = classpath;
    this.jvmOptions = jvmOptions;
  }

  /**
   * Starts a JobManager and {@code taskManagers} task managers of {@code slots} slots each, their configuration, logs
   * and working files in {@code dir}, on the jars of {@code lib}, with {@code jvmOptions} (Flink's module opens for
   * Java 17); returns when every task manager has registered, at most {@code readyTimeout}.
   */
  public static FlinkSessionCluster start(Path dir, Path lib, int taskManagers, int slots, List<String> jvmOptions,
      Duration readyTimeout) throws IOException, InterruptedException {
    return start(dir, lib, 1, null, taskManagers, slots, jvmOptions, readyTimeout);
  }

  /**
   * As {@link #start(Path, Path, int, int, List, Duration)}, with {@code jobManagers} JobManagers in Flink's high
   * availability on the ZooKeeper at {@code zookeeper}: the first leads (it starts alone), the others stand by, and a
   * job, its jar and its checkpoints' pointers live in ZooKeeper and {@code dir/ha}, so it outlives its JobManager.
   */
  public static FlinkSessionCluster start(Path dir, Path lib, int jobManagers, String zookeeper, int taskManagers,
      int slots, List<String> jvmOptions, Duration readyTimeout) throws IOException, InterruptedException {
    List<String> jars;
    try (Stream<Path> files = Files.list(lib)) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
    }
    if (jars.isEmpty()) {
      throw new IOException("no Flink jars in " + lib + " (./mvnw package -pl flink-lib puts them there)");
    }
    Files.createDirectories(dir.resolve("tmp"));
    List<String> common = new ArrayList<>(List.of(
        "taskmanager.host: 127.0.0.1",
        "taskmanager.bind-host: 127.0.0.1",
        "taskmanager.numberOfTaskSlots: " + slots,
        // What Flink's start scripts compute from a total and pass to the task manager, for a 512 MB heap.
        "taskmanager.cpu.cores: " + slots,
        "taskmanager.memory.framework.heap.size: 128m",
        "taskmanager.memory.task.heap.size: 256m",
        "taskmanager.memory.framework.off-heap.size: 128m",
        "taskmanager.memory.task.off-heap.size: 0m",
        "taskmanager.memory.network.min: 64m",
        "taskmanager.memory.network.max: 64m",
        "taskmanager.memory.managed.size: 64m",
        "taskmanager.memory.jvm-metaspace.size: 256m",
        "taskmanager.memory.jvm-overhead.min: 192m",
        "taskmanager.memory.jvm-overhead.max: 192m",
        "io.tmp.dirs: " + dir.resolve("tmp").toAbsolutePath(),
        // A lost task manager is noticed by its heartbeat within seconds, not the default 50 (compose.yaml keeps
        // Flink's: a long pause of a busy host there does not restart the job).
        "heartbeat.interval: 1000",
        "heartbeat.timeout: 5000"));
    common.addAll(PLACEMENT);
    if (zookeeper != null) {
      common.addAll(List.of(
          "high-availability.type: zookeeper",
          "high-availability.zookeeper.quorum: " + zookeeper,
          "high-availability.zookeeper.path.root: /flink",
          "high-availability.storageDir: " + dir.resolve("ha").toAbsolutePath().toUri()));
      common.addAll(HIGH_AVAILABILITY);
    }
    FlinkSessionCluster cluster = new FlinkSessionCluster(dir, String.join(File.pathSeparator, jars),
        List.copyOf(jvmOptions));
    try {
      for (int i = 0; i < jobManagers; i++) {
        cluster.startJobManager(i, common);
        if (i == 0) {
          for (int t = 0; t < taskManagers; t++) {
            cluster.startTaskManager();
          }
          // The first leads: the others start once it does.
          cluster.jobManagers.get(0).awaitReady(readyTimeout,
              () -> cluster.registeredTaskManagers() == taskManagers);
        }
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** Writes JobManager {@code i}'s configuration (its own ports) and the task managers', and starts it. */
  private void startJobManager(int i, List<String> common) throws IOException {
    int[] ports = FreePorts.pick(3);
    List<String> config = new ArrayList<>(List.of(
        "jobmanager.rpc.address: 127.0.0.1",
        "jobmanager.rpc.port: " + ports[0],
        "jobmanager.bind-host: 127.0.0.1",
        "rest.address: 127.0.0.1",
        "rest.bind-address: 127.0.0.1",
        "rest.port: " + ports[1],
        "blob.server.port: " + ports[2],
        "web.upload.dir: " + dir.resolve("uploads-" + i).toAbsolutePath()));
    config.addAll(common);
    Path directory = dir.resolve(i == 0 ? "conf" : "conf-" + i); // the task managers read conf: the first's address
    Files.createDirectories(directory);
    Files.writeString(directory.resolve("config.yaml"), String.join("\n", config) + "\n");
    restPorts.add(ports[1]);
    jobManagerCommands.add(command(JOB_MANAGER, classpath, jvmOptions, "512m", directory));
    jobManagers.add(launchJobManager(i));
  }

  private ChildProcess launchJobManager(int i) throws IOException {
    return jobManagerCommands.get(i).start(i == 0 ? "flink-jobmanager" : "flink-jobmanager-" + i,
        dir.resolve(i == 0 ? "jobmanager.log" : "jobmanager-" + i + ".log"));
  }

  /**
   * Stops JobManager {@code i} as an operator does (SIGTERM; a leader's jobs are suspended, not cancelled, and a
   * standby recovers them) and starts it again on its ports; returns once its REST API answers (as a standby, when
   * another leads).
   */
  public void restartJobManager(int i, Duration readyTimeout) throws IOException, InterruptedException {
    jobManagers.get(i).stop(Duration.ofSeconds(30));
    ChildProcess jobManager = launchJobManager(i);
    jobManagers.set(i, jobManager);
    String rest = "http://127.0.0.1:" + restPorts.get(i) + "/config";
    jobManager.awaitReady(readyTimeout, () -> {
      try {
        // Any answer: a standby's endpoint answers too, with an error until it leads.
        http.send(HttpRequest.newBuilder(URI.create(rest)).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.discarding());
        return true;
      } catch (IOException notYet) {
        return false;
      }
    });
  }

  /**
   * Both roles log at INFO with the time of day, as Flink's distribution does: leadership, job recoveries and each
   * task's deployment and initialization are what a failover drill is read by.
   */
  private static JavaCommand command(String main, String classpath, List<String> jvmOptions, String heap, Path config) {
    return JavaCommand.mainClass(main).classpath(classpath).classData(null).heap(heap).jvmOptions(jvmOptions)
        .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=info")
        .jvmOption("-Dorg.slf4j.simpleLogger.showDateTime=true")
        .jvmOption("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS")
        .args("--configDir", config.toString());
  }

  /** Starts one more task manager; it registers with the JobManager on its own. */
  public ChildProcess startTaskManager() throws IOException {
    int index = taskManagers.size();
    ChildProcess taskManager = command(TASK_MANAGER, classpath, jvmOptions, "512m", dir.resolve("conf"))
        .start("flink-taskmanager-" + index, dir.resolve("taskmanager-" + index + ".log"));
    taskManagers.add(taskManager);
    return taskManager;
  }

  /** The task managers started so far, in order (a killed one stays in the list). */
  public List<ChildProcess> taskManagers() {
    return List.copyOf(taskManagers);
  }

  /** How many task managers the leading JobManager knows: 0 while none answers. */
  public int registeredTaskManagers() {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(restUrl() + "/overview"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      Matcher count = TASK_MANAGERS.matcher(response.body());
      return response.statusCode() == 200 && count.find() ? Integer.parseInt(count.group(1)) : 0;
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  /**
   * The REST endpoint of the first JobManager still running, {@code http://127.0.0.1:port}: in high availability any
   * JobManager's endpoint answers for the leader, once there is one.
   */
  public String restUrl() {
    for (int i = 0; i < jobManagers.size(); i++) {
      if (jobManagers.get(i).isAlive()) {
        return "http://127.0.0.1:" + restPorts.get(i);
      }
    }
    return "http://127.0.0.1:" + restPorts.get(0);
  }

  /** The JobManagers, the first the one that led first (a killed one stays in the list). */
  public List<ChildProcess> jobManagers() {
    return List.copyOf(jobManagers);
  }

  @Override
  public void close() throws InterruptedException {
    for (ChildProcess taskManager : taskManagers) {
      taskManager.stop(Duration.ofSeconds(10));
    }
    for (ChildProcess jobManager : jobManagers) {
      jobManager.stop(Duration.ofSeconds(10));
    }
  }
}
