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
 * the {@code flink-lib} module: Flink alone, none of Evenkeel's). Jobs reach it through its REST API.
 */
public final class FlinkSessionCluster implements AutoCloseable {
  private static final Pattern TASK_MANAGERS = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)");
  private static final String JOB_MANAGER = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  private static final String TASK_MANAGER = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

  private final Path dir;
  private final String classpath;
  private final List<String> jvmOptions;
  private final int restPort;
  private final ChildProcess jobManager;
  private final List<ChildProcess> taskManagers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  private FlinkSessionCluster(Path dir, String classpath, List<String> jvmOptions, int restPort,
      ChildProcess jobManager) {
    this.dir = dir;
    this.classpath = classpath;
    this.jvmOptions = jvmOptions;
    this.restPort = restPort;
    this.jobManager = jobManager;
  }

  /**
   * Starts a JobManager and {@code taskManagers} task managers of {@code slots} slots each, their configuration, logs
   * and working files in {@code dir}, on the jars of {@code lib}, with {@code jvmOptions} (Flink's module opens for
   * Java 17); returns when every task manager has registered, at most {@code readyTimeout}.
   */
  public static FlinkSessionCluster start(Path dir, Path lib, int taskManagers, int slots, List<String> jvmOptions,
      Duration readyTimeout) throws IOException, InterruptedException {
    List<String> jars;
    try (Stream<Path> files = Files.list(lib)) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
    }
    if (jars.isEmpty()) {
      throw new IOException("no Flink jars in " + lib + " (./mvnw package -pl flink-lib puts them there)");
    }
    int[] ports = FreePorts.pick(3);
    Path config = dir.resolve("conf");
    Files.createDirectories(config);
    Files.createDirectories(dir.resolve("tmp"));
    Files.writeString(config.resolve("config.yaml"), String.join("\n",
        "jobmanager.rpc.address: 127.0.0.1",
        "jobmanager.rpc.port: " + ports[0],
        "jobmanager.bind-host: 127.0.0.1",
        "rest.address: 127.0.0.1",
        "rest.bind-address: 127.0.0.1",
        "rest.port: " + ports[1],
        "blob.server.port: " + ports[2],
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
        "web.upload.dir: " + dir.resolve("uploads").toAbsolutePath(),
        // A lost task manager is noticed by its heartbeat within seconds, not the default 50.
        "heartbeat.interval: 1000",
        "heartbeat.timeout: 5000",
        ""));
    String classpath = String.join(File.pathSeparator, jars);
    ChildProcess jobManager = command(JOB_MANAGER, classpath, jvmOptions, "512m", config)
        .start("flink-jobmanager", dir.resolve("jobmanager.log"));
    FlinkSessionCluster cluster = new FlinkSessionCluster(dir, classpath, List.copyOf(jvmOptions), ports[1],
        jobManager);
    try {
      for (int i = 0; i < taskManagers; i++) {
        cluster.startTaskManager();
      }
      jobManager.awaitReady(readyTimeout, () -> cluster.registeredTaskManagers() == taskManagers);
    } catch (IOException | RuntimeException | InterruptedException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static JavaCommand command(String main, String classpath, List<String> jvmOptions, String heap, Path config) {
    return JavaCommand.mainClass(main).classpath(classpath).classData(null).heap(heap).jvmOptions(jvmOptions)
        .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn").args("--configDir", config.toString());
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

  /** How many task managers the JobManager knows: 0 while it cannot answer. */
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

  /** The REST endpoint: {@code http://127.0.0.1:port}. */
  public String restUrl() {
    return "http://127.0.0.1:" + restPort;
  }

  public ChildProcess jobManager() {
    return jobManager;
  }

  @Override
  public void close() throws InterruptedException {
    for (ChildProcess taskManager : taskManagers) {
      taskManager.stop(Duration.ofSeconds(10));
    }
    jobManager.stop(Duration.ofSeconds(10));
  }
}
