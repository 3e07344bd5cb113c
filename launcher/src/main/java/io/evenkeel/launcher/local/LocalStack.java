package io.evenkeel.launcher.local;

import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.options.PlacementSettings;
import io.evenkeel.cluster.options.ZooKeeperSettings;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.embedded.ZooKeeperServer;
import io.evenkeel.router.policy.PolicySpec;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Starts the components of a local Evenkeel in dependency order, each as its own supervised process with its log in
 * {@code <data dir>/logs}, and stops them in reverse order. A component is registered the moment its process
 * exists, so {@link #close} stops it even if it never became ready.
 *
 * <p>NOTE: start and close run on one thread (the command's); {@link #onDeath} callbacks, restarts and {@link
 * #addShardServer} come from others.
 */
final class LocalStack implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private final EvenkeelHome home;
  private final StackOptions options;
  private final PrintStream out;
  /**
   * Every process's flags: the project's, and C1 alone ({@link JavaCommand#QUICK_COMPILER}). The stack's JVMs share one
   * machine: on 2 cores their C2 compiler threads took more CPU during a 300,000-row load and the queries after it than
   * the processes' own work, and the loads ran faster and the queries' tails were shorter with C1 alone
   * (docs/LOCAL-STACK.md).
   */
  private final List<String> jvmFlags = Stream.concat(Stream.of(JavaCommand.QUICK_COMPILER), JvmFlags.all().stream())
      .toList();
  /** In start order; stopped from the end. */
  private final List<ChildProcess> started = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Callable<ShardServerProcess>> shardServerLaunchers = new ConcurrentHashMap<>();
  /** The processes that keep no data of their own (the CDC runner, the ingest job): started again as they were. */
  private final Map<String, Callable<ChildProcess>> relaunchers = new HashMap<>();
  /** The launcher's client of the shard servers (status line); made in {@link #start}, over TLS with --secure. */
  private ClusterClient cluster;
  private LocalSecurity security;
  /** Shard servers started so far: server i on port base+10+i, a server added to the running stack next. */
  private int shardServerCount;
  /** The ZooKeeper every process of the stack joins, as their flags give it. */
  private ZooKeeperSettings zookeeperSettings;
  /** The flags with which every process of the stack reaches Kafka: its client config with --secure, else none. */
  private List<String> kafkaArgs;
  private final StackLayout layout;
  private volatile boolean stopping;
  /** Orders adding a shard server against stopping: no stack.json written, no server started, once stopping. */
  private final Object lifecycle = new Object();
  private Consumer<ChildProcess> onDeath = dead -> {};
  private volatile StackInfo info;

  LocalStack(EvenkeelHome home, StackOptions options, PrintStream out) {
    this.home = home;
    this.options = options;
    this.out = out;
    this.layout = new StackLayout(options.shards(), options.ports().shardServers());
  }

  /** Called, once per component, when a component's process exits while the stack is not stopping. */
  void onDeath(Consumer<ChildProcess> listener) {
    this.onDeath = listener;
  }

  /** Starts every component and waits until each is ready, printing progress; throws naming the one that failed. */
  StackInfo start() throws Exception {
    Files.createDirectories(options.logs());
    layout.claim(options.dataDir());
    if (options.secure()) {
      security = LocalSecurity.create(options.dataDir(), home.queryServiceJar(), options.apiKeys());
    }
    cluster = new ClusterClient(security == null ? null : security.clientTls("launcher"));

    ZooKeeperServer zookeeper = startZooKeeper();
    // Shard servers need only ZooKeeper: they start while Kafka does (each is a JVM start plus opening its shards).
    StartingShardServers shardServers = launchShardServers();
    KafkaBroker kafka = startKafka();
    awaitShardServers(shardServers);
    if (options.cdc() != null) {
      startCdc(kafka, options.cdc());
    }
    String flinkUi = url(options.ports().flinkUi());
    String queryService = url(options.ports().queryService());
    startIngestJobAndQueryService(kafka, flinkUi, queryService);
    if (options.replay()) {
      startReplayer(kafka);
    }

    info = new StackInfo(ProcessHandle.current().pid(), kafka.bootstrapServers(), options.topic(),
        StackOptions.WRITTEN_OFFSETS_GROUP, zookeeper.connectString(), StackOptions.ZOOKEEPER_ROOT, options.shards(),
        List.copyOf(shardServers.servers()), flinkUi, queryService,
        security == null ? null : security.caCertificate().toAbsolutePath().toString(),
        security == null ? null : security.kafkaClientConfig().toAbsolutePath().toString());
    info.write(options.dataDir());
    return info;
  }

  /** Starts ZooKeeper and records how every other process joins it. */
  private ZooKeeperServer startZooKeeper() throws IOException, InterruptedException {
    long t = step("zookeeper");
    ZooKeeperServer zookeeper = ZooKeeperServer.start(options.dataDir().resolve("zookeeper"),
        options.ports().zookeeper(), log("zookeeper"), READY_TIMEOUT);
    zookeeperSettings = new ZooKeeperSettings(zookeeper.connectString(), StackOptions.ZOOKEEPER_ROOT,
        security == null ? null : security.zookeeperCredentials().toString());
    supervise(zookeeper.process());
    ready("zookeeper", zookeeper.connectString(), t);
    return zookeeper;
  }

  /** Launches the stack's shard servers, each laying out its range of shards, without waiting for them. */
  private StartingShardServers launchShardServers() throws Exception {
    List<StackInfo.ShardServer> servers = new ArrayList<>();
    List<ShardServerProcess> processes = new ArrayList<>();
    long since = step("shard servers");
    for (int i = 0; i < options.ports().shardServers(); i++) {
      ShardServerProcess server = launchShardServer(i,
          List.of("--shards", layout.firstShard(i) + "-" + layout.lastShard(i)));
      processes.add(server);
      servers.add(new StackInfo.ShardServer("127.0.0.1:" + options.ports().shardServer(i), layout.firstShard(i),
          layout.lastShard(i)));
    }
    return new StartingShardServers(since, processes, servers);
  }

  /** Starts the Kafka broker (SASL only, with --secure) with the stack's topic, and records how clients reach it. */
  private KafkaBroker startKafka() throws Exception {
    long t = step("kafka");
    KafkaBroker.Builder kafkaBroker = KafkaBroker.builder(options.dataDir().resolve("kafka"))
        .ports(options.ports().kafka(), options.ports().kafkaController()).log(log("kafka"))
        .readyTimeout(READY_TIMEOUT);
    if (security != null) {
      kafkaBroker.saslOnly(LocalSecurity.KAFKA_USER, security.kafkaPassword());
    }
    KafkaBroker kafka = kafkaBroker.start();
    kafkaArgs = security == null ? List.of() : security.kafkaArgs();
    supervise(kafka.process());
    kafka.ensureTopic(options.topic(), StackOptions.TOPIC_PARTITIONS);
    ready("kafka", kafka.bootstrapServers() + ", topic " + options.topic(), t);
    return kafka;
  }

  /** Waits until each shard server {@link #launchShardServers} launched is ready, printing each. */
  private void awaitShardServers(StartingShardServers starting) throws IOException, InterruptedException {
    for (int i = 0; i < starting.processes().size(); i++) {
      starting.processes().get(i).awaitReady(READY_TIMEOUT);
      ready("shard-server-" + i, starting.servers().get(i).address() + " (shards " + layout.firstShard(i) + "-"
          + layout.lastShard(i) + ")", starting.since());
    }
  }

  /** Starts the CDC runner, restartable as it was started (it resumes from its stored binlog offsets). */
  private void startCdc(KafkaBroker kafka, CdcOptions cdc) throws Exception {
    long t = step("cdc");
    // Kept for good: a second snapshot reads each row's last event back (docs/CDC.md). Not compacted, which would
    // refuse the keyless events of a table without a primary key.
    kafka.ensureTopic(cdc.topic(), StackOptions.TOPIC_PARTITIONS, Map.of("retention.ms", "-1"));
    Path cdcLog = log("cdc");
    Callable<ChildProcess> launchCdc = () -> {
      ChildProcess runner = supervise(cdcCommand(kafka, cdc).start("cdc", cdcLog));
      // Ready once it has checked the table and started Debezium (it exits naming the problem otherwise).
      runner.awaitReady(READY_TIMEOUT, () -> Files.readString(cdcLog).contains("cdc: capturing"));
      return runner;
    };
    relaunchers.put("cdc", launchCdc);
    launchCdc.call();
    ready("cdc", cdc.table() + " into topic " + cdc.topic(), t);
  }

  private JavaCommand cdcCommand(KafkaBroker kafka, CdcOptions cdc) {
    return JavaCommand.mainClass("io.evenkeel.cdc.CdcMain")
        .classpath(home.cdcClasspath()).heap("384m").jvmOptions(jvmFlags)
        .args("--source", cdc.source(), "--table", cdc.table(), "--columns", cdc.columns(),
            "--connector", cdc.connector(), "--bootstrap-servers", kafka.bootstrapServers(),
            "--topic-prefix", CdcOptions.TOPIC_PREFIX,
            "--state-dir", options.dataDir().resolve("cdc").toAbsolutePath().toString())
        .args(cdc.passwordFile() == null ? List.of() : List.of("--password-file", cdc.passwordFile().toString()))
        .args(kafkaArgs);
  }

  /**
   * Starts the ingest job and the query service, each restartable as it was started, and waits until both are ready.
   */
  private void startIngestJobAndQueryService(KafkaBroker kafka, String flinkUi, String queryService)
      throws Exception {
    long t = step("ingest-job");
    // Writers and queries follow the cluster state: a shard's primary moves when its server dies.
    PlacementSettings placement = new PlacementSettings(options.shards(), ShardPlacement.FROM_CLUSTER_STATE);
    PolicySpec policy = PolicySpec.parse(options.policy());
    Callable<ChildProcess> launchIngest = () -> supervise(
        ingestJobCommand(kafka, placement, policy).start("ingest-job", log("ingest-job")));
    HttpClient http = security == null ? HttpClient.newHttpClient() : security.httpClient();
    // Started again, it resumes at the offsets it had written (--start-offsets committed, its default).
    relaunchers.put("ingest-job", () -> {
      ChildProcess ingest = launchIngest.call();
      ingest.awaitReady(READY_TIMEOUT, () -> jobRunning(http, flinkUi));
      return ingest;
    });

    // It holds no data: one that died (it exits on OutOfMemoryError) is started again on its port.
    Callable<ChildProcess> launchQuery = () -> supervise(
        queryServiceCommand(kafka, flinkUi, placement, policy).start("query-service", log("query-service")));
    relaunchers.put("query-service", () -> {
      ChildProcess query = launchQuery.call();
      query.awaitReady(READY_TIMEOUT, () -> healthy(http, queryService));
      return query;
    });
    // The query service starts while the job does: neither waits for the other.
    long queryStarted = step("query-service");
    ChildProcess query = launchQuery.call();
    relaunchers.get("ingest-job").call();
    ready("ingest-job", flinkUi + " (policy " + options.policy() + ")", t);
    query.awaitReady(READY_TIMEOUT, () -> healthy(http, queryService));
    ready("query-service", queryService + "/sql, console at " + queryService + "/console", queryStarted);
  }

  private JavaCommand ingestJobCommand(KafkaBroker kafka, PlacementSettings placement, PolicySpec policy) {
    return JavaCommand.mainClass("io.evenkeel.ingest.IngestJobMain")
        .classpath(home.ingestJobClasspath()).serverHeap("1g").jvmOptions(jvmFlags)
        .args("--local", "--web-ui-port", Integer.toString(options.ports().flinkUi()),
            "--bootstrap-servers", kafka.bootstrapServers(), "--topic", options.topic(),
            "--group-id", StackOptions.INGEST_GROUP, "--written-offsets-group", StackOptions.WRITTEN_OFFSETS_GROUP,
            "--checkpoint-dir", options.dataDir().resolve("flink-checkpoints").toAbsolutePath().toUri().toString(),
            "--sink-spill-dir", options.dataDir().resolve("sink-spill").toAbsolutePath().toString())
        .args(zookeeperSettings.toArgs())
        .args(placement.toArgs())
        .args(policy.toArgs())
        .args(options.cdc() == null ? List.of() : List.of("--cdc-topic", options.cdc().topic(),
            "--cdc-columns", options.cdc().columns(), "--cdc-datetime-zone", options.cdc().datetimeZone()))
        .args(kafkaArgs)
        .args(security == null ? List.of() : security.clientArgs(LocalSecurity.WRITER))
        .args(security == null ? List.of() : security.webUiArgs())
        .args(options.jobArgs());
  }

  private JavaCommand queryServiceCommand(KafkaBroker kafka, String flinkUi, PlacementSettings placement,
      PolicySpec policy) {
    return JavaCommand.jar(home.queryServiceJar()).serverHeap("512m").jvmOptions(jvmFlags)
        .args("--port", Integer.toString(options.ports().queryService()),
            // The console shows the job's window summaries and links to its UI.
            "--bootstrap-servers", kafka.bootstrapServers(), "--flink-ui", flinkUi,
            // GET /searchable: read-your-writes for any producer, from the job's written offsets.
            "--ingest-topic", options.topic(), "--written-offsets-group", StackOptions.WRITTEN_OFFSETS_GROUP)
        // ... and by binlog position or GTID, from the CDC runner's published positions.
        .args(options.cdc() == null ? List.of() : List.of("--cdc-topic", options.cdc().topic()))
        .args(zookeeperSettings.toArgs())
        .args(placement.toArgs())
        .args(policy.toArgs())
        .args(kafkaArgs)
        .args(security != null ? security.clientArgs("query") : List.of())
        .args(security != null ? security.httpsArgs() : List.of())
        .args(queryServiceKeys() == null ? List.of() : List.of("--api-keys", queryServiceKeys().toString()));
  }

  /** Starts the replayer of the Singles' Day workload into the stack's topic. */
  private void startReplayer(KafkaBroker kafka) throws IOException, InterruptedException {
    long t = step("replayer");
    ChildProcess replayer = supervise(
        JavaCommand.mainClass("io.evenkeel.workload.SinglesDayReplayer")
            .classpath(home.launcherClasspath()).heap("256m").jvmOptions(jvmFlags)
            .args("--bootstrap-servers", kafka.bootstrapServers(), "--topic", options.topic(),
                "--rate", Double.toString(options.rate()), "--surge-factor", Double.toString(options.surgeFactor()),
                "--theta", Double.toString(options.theta()))
            .args(kafkaArgs)
            .start("replayer", log("replayer")));
    // It has nothing to wait for; a second alive means its arguments were accepted and it reached Kafka's client.
    replayer.awaitReady(Duration.ofSeconds(30), () -> ready(replayer));
    ready("replayer", String.format("%.0f changes/s (x%.1f surge), theta %.2f", options.rate(),
        options.surgeFactor(), options.theta()), t);
  }

  /**
   * Starts shard server {@code index} on its port and data directory, supervised and restartable, joined to the
   * cluster; {@code layoutArgs} lay out shards the cluster state does not know yet (none for a server added later).
   */
  private ShardServerProcess launchShardServer(int index, List<String> layoutArgs) throws Exception {
    String name = "shard-server-" + index;
    int port = options.ports().shardServer(index);
    List<String> args = concat(concat(concat(layoutArgs, zookeeperSettings.toArgs()), List.of(
            "--replicas", Integer.toString(options.replicas()), "--replication", options.replication(),
            "--write-capacity", Double.toString(options.shardWriteCapacity()))),
        security == null ? List.of() : security.shardServerArgs());
    Path serverData = options.dataDir().resolve("shards").resolve("server-" + index);
    Callable<ShardServerProcess> launch = () -> ShardServerProcess.launch(name,
        JavaCommand.jar(home.shardServerJar()).serverHeap("512m").jvmOptions(jvmFlags), serverData, port, log(name),
        args);
    shardServerLaunchers.put(name, launch);
    ShardServerProcess server = launch.call();
    supervise(server.process());
    synchronized (lifecycle) {
      shardServerCount++;
    }
    return server;
  }

  /**
   * Adds a shard server to the running stack (the next port and data directory): it joins the cluster holding
   * nothing, and the master moves copies onto it until the servers are even. Recorded in layout.json, so a restart
   * starts it too, and in stack.json. Answers it once it is ready.
   */
  synchronized StackInfo.ShardServer addShardServer() throws Exception {
    int index;
    synchronized (lifecycle) {
      if (stopping) {
        throw new IOException("the stack is stopping");
      }
      index = shardServerCount;
      // Recorded first: once it has joined, it may hold the only copy of a moved primary.
      new StackLayout(layout.shards(), index + 1).record(options.dataDir());
    }
    long t = step("shard-server-" + index);
    ShardServerProcess server = launchShardServer(index, List.of());
    server.awaitReady(READY_TIMEOUT);
    StackInfo.ShardServer added = new StackInfo.ShardServer("127.0.0.1:" + options.ports().shardServer(index), null,
        null);
    synchronized (lifecycle) {
      if (!stopping) {
        info = info.withShardServer(added);
        info.write(options.dataDir());
      }
    }
    ready("shard-server-" + index, added.address() + " (joined; the master moves copies onto it)", t);
    return added;
  }

  /** Shard servers launched and not waited for yet, in index order, with when they started. */
  private record StartingShardServers(long since, List<ShardServerProcess> processes,
      List<StackInfo.ShardServer> servers) {
  }

  /** Where a component serving HTTP on {@code port} answers: over HTTPS with --secure. */
  private String url(int port) {
    return (security == null ? "http" : "https") + "://127.0.0.1:" + port;
  }

  private static boolean ready(ChildProcess replayer) throws InterruptedException {
    Thread.sleep(1_000);
    return replayer.isAlive();
  }

  /** Whether the query service answers GET /health. */
  private static boolean healthy(HttpClient http, String queryService) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(
        URI.create(queryService + "/health")).timeout(Duration.ofSeconds(2)).build(),
        HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200;
  }

  /** Whether the Flink REST API lists a job in state RUNNING. */
  private static boolean jobRunning(HttpClient http, String flinkUi) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(
        URI.create(flinkUi + "/jobs/overview")).timeout(Duration.ofSeconds(2)).build(),
        HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 && response.body().contains("\"state\":\"RUNNING\"");
  }

  private ChildProcess supervise(ChildProcess process) throws InterruptedException {
    started.add(process);
    process.onExit().thenAccept(code -> {
      if (!stopping) {
        onDeath.accept(process);
      }
    });
    if (stopping) {
      // close() ran while this component was starting: it missed it, so stop it here.
      process.stop(Duration.ofSeconds(30));
    }
    return process;
  }

  private Path log(String component) {
    return options.logs().resolve(component + ".log");
  }

  private long step(String component) {
    out.printf("  %-15s starting%n", component);
    out.flush();
    return System.nanoTime();
  }

  private void ready(String component, String where, long since) {
    out.printf("  %-15s ready     %s (%.1f s)%n", component, where, (System.nanoTime() - since) / 1e9);
    out.flush();
  }

  /** With {@code --secure}, the file of the ZooKeeper identity every process authenticates as; else null. */
  Path zookeeperCredentials() {
    return security == null ? null : security.zookeeperCredentials();
  }

  /** The query service's key file: {@code --api-keys}, or the one {@code --secure} made; null for none. */
  private Path queryServiceKeys() {
    return security != null ? security.apiKeys() : options.apiKeys();
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  ClusterClient cluster() {
    return cluster;
  }

  /**
   * Whether the stack carries on when {@code name} dies: a shard server whose shards have replicas elsewhere, the CDC
   * runner (it resumes from its stored binlog offsets) and the ingest job (from the offsets it had written).
   */
  boolean restartable(String name) {
    return relaunchers.containsKey(name) || options.replicas() > 0 && shardServerLaunchers.containsKey(name);
  }

  /**
   * How long to wait before restarting {@code name}: a shard server waits for its ZooKeeper session to end, so that
   * its replicas take over and it comes back as their replica; the others hold no data of their own.
   */
  Duration restartDelay(String name) {
    return relaunchers.containsKey(name) ? Duration.ofSeconds(1) : Duration.ofSeconds(12);
  }

  /** What happens next, for the user, when {@code name} died and {@link #restartable} says the stack carries on. */
  String restartNote(String name) {
    return name.equals("query-service") ? "it restarts (it holds no data)"
        : relaunchers.containsKey(name) ? "it restarts and resumes where it had got to"
        : "the replicas of its primaries take over once its ZooKeeper session ends (10 s); it restarts then and"
            + " rejoins as a replica";
  }

  /**
   * Starts the dead component {@code name} again: a shard server on its port and data directory, as a supervisor
   * would (it rejoins the cluster and holds what the cluster state assigns it now: replicas of the shards that failed
   * over); the CDC runner, the ingest job or the query service as it was started.
   */
  void restart(String name) throws Exception {
    synchronized (started) {
      started.removeIf(process -> process.name().equals(name) && !process.isAlive());
    }
    if (relaunchers.containsKey(name)) {
      relaunchers.get(name).call();
      return;
    }
    ShardServerProcess server = shardServerLaunchers.get(name).call();
    supervise(server.process());
    server.awaitReady(READY_TIMEOUT);
  }

  /** The processes running now, in start order. */
  List<ChildProcess> processes() {
    synchronized (started) {
      return List.copyOf(started);
    }
  }

  /**
   * Stops every component in reverse start order (SIGTERM, SIGKILL after 30 s), printing each; removes stack.json
   * first so no command talks to a stack going away. Idempotent.
   */
  @Override
  public void close() throws InterruptedException {
    synchronized (lifecycle) {
      stopping = true;
      try {
        Files.deleteIfExists(options.dataDir().resolve(StackInfo.FILE));
      } catch (IOException e) {
        out.println("could not remove " + StackInfo.FILE + ": " + e.getMessage());
      }
    }
    List<ChildProcess> toStop = processes();
    for (int i = toStop.size() - 1; i >= 0; i--) {
      ChildProcess process = toStop.get(i);
      if (process.isAlive()) {
        long t = System.nanoTime();
        int code = process.stop(Duration.ofSeconds(30));
        // 143 = 128 + SIGTERM: the JVM ran its shutdown hooks and exited as asked.
        out.printf("  %-15s stopped (%.1f s%s)%n", process.name(), (System.nanoTime() - t) / 1e9,
            code == 143 || code == 0 ? "" : ", exit code " + code);
        out.flush();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
