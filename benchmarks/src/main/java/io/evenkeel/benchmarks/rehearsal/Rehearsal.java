package io.evenkeel.benchmarks.rehearsal;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.SqlEndpoint;
import io.evenkeel.benchmarks.peer.SqlOverHttp;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.FlinkSessionCluster;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.KafkaCluster;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.embedded.ZooKeeperEnsemble;
import io.evenkeel.launcher.local.JvmFlags;
import io.evenkeel.schemas.ShardCopies;
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
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Evenkeel deployed on the engines a user already runs, as plain processes on loopback in the topology of {@code
 * docker/compose.yaml} (RehearsalComposeTest keeps the two in step): a ZooKeeper ensemble of three servers, three
 * KRaft Kafka nodes (topics on three replicas, {@code min.insync.replicas} 2), a standalone Flink session cluster of
 * two JobManagers in ZooKeeper high availability and two task managers running the ingest job's jar as {@code
 * bin/evenkeel submit} sends it, three shard servers with one replica of every shard, and two query services. Every
 * process can be killed, stopped and started again in place, as the drills do.
 */
public final class Rehearsal implements SqlEndpoint, AutoCloseable {
  public static final int ZOOKEEPER_SERVERS = 3;
  public static final int KAFKA_NODES = 3;
  public static final int JOB_MANAGERS = 2;
  public static final int TASK_MANAGERS = 2;
  public static final int TASK_SLOTS = 2;
  public static final int PARALLELISM = 2;
  public static final int SHARD_SERVERS = 3;
  public static final int SHARDS = 12;
  public static final int REPLICAS = 1;
  /** Stateless, so two: one answers while the other restarts. */
  public static final int QUERY_SERVICES = 2;
  public static final int PARTITIONS = 8;
  public static final String POLICY = "dynamic";
  public static final String TOPIC = "transaction-logs";
  public static final String ZOOKEEPER_ROOT = "/evenkeel/rehearsal";
  public static final String WRITTEN_OFFSETS_GROUP = "evenkeel-ingest.written";
  /** A step's limit: a shard server's copies moving back after its restart took up to 3 minutes on 2 cores. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(300);
  private static final Pattern SUBMITTED = Pattern.compile("job ([0-9a-f]{32}) RUNNING");

  private final Path repo;
  private final Path dir;
  private final PrintStream out;
  /** Every Evenkeel JVM's flags, as the local stack gives them. */
  private final List<String> jvmFlags = Stream.concat(Stream.of(JavaCommand.QUICK_COMPILER), JvmFlags.all().stream())
      .toList();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ShardServerProcess> shardServers = new ArrayList<>();
  private final int[] shardServerPorts;
  private final int[] queryServicePorts;
  private final SqlOverHttp sql;
  private ZooKeeperEnsemble zookeeper;
  private KafkaCluster kafka;
  private FlinkSessionCluster flink;
  private final ChildProcess[] queryServices = new ChildProcess[QUERY_SERVICES];
  private CuratorFramework clusterStateConnection;
  private ClusterStateClient clusterState;
  /** The JobManager leading now: the first leads first; a stopped or killed leader's standby leads after it. */
  private int leadingJobManager;

  private Rehearsal(Path repo, Path dir, PrintStream out) throws IOException {
    this.repo = repo;
    this.dir = dir;
    this.out = out;
    this.shardServerPorts = FreePorts.pick(SHARD_SERVERS);
    this.queryServicePorts = FreePorts.pick(QUERY_SERVICES);
    this.sql = new SqlOverHttp(queryServiceUrls());
  }

  /**
   * Starts every process from the jars of the checkout at {@code repo} (built with {@code ./mvnw package}), their
   * data and logs in {@code dir}, printing each step to {@code out}; returns once the job runs and every shard has its
   * primary and an in-sync replica.
   */
  public static Rehearsal start(Path repo, Path dir, PrintStream out) throws Exception {
    Rehearsal rehearsal = new Rehearsal(repo.toAbsolutePath().normalize(), dir.toAbsolutePath(), out);
    try {
      rehearsal.startAll();
    } catch (Exception | Error e) {
      rehearsal.close();
      throw e;
    }
    return rehearsal;
  }

  private void startAll() throws Exception {
    long started = System.nanoTime();
    zookeeper = ZooKeeperEnsemble.start(dir.resolve("zookeeper"), ZOOKEEPER_SERVERS);
    step("zookeeper", zookeeper.connectString(), started);
    for (int i = 0; i < SHARD_SERVERS; i++) {
      shardServers.add(launchShardServer(i));
    }
    long since = System.nanoTime();
    kafka = KafkaCluster.start(dir.resolve("kafka"), KAFKA_NODES);
    kafka.broker(0).createTopic(TOPIC, PARTITIONS);
    step("kafka", kafka.bootstrapServers() + ", topic " + TOPIC, since);
    since = System.nanoTime();
    flink = FlinkSessionCluster.start(dir.resolve("flink"), repo.resolve("flink-lib/target/lib"), JOB_MANAGERS,
        zookeeper.connectString(), TASK_MANAGERS, TASK_SLOTS, jvmFlags, READY_TIMEOUT);
    step("flink", flink.restUrl(), since);
    since = System.nanoTime();
    for (ShardServerProcess server : shardServers) {
      server.awaitReady(READY_TIMEOUT);
    }
    clusterStateConnection = CuratorFrameworkFactory.newClient(zookeeper.connectString(),
        new ExponentialBackoffRetry(200, 10));
    clusterStateConnection.start();
    clusterState = new ClusterStateClient(clusterStateConnection, ZOOKEEPER_ROOT);
    clusterState.start();
    awaitShardsAtRest(READY_TIMEOUT);
    step("shard servers", SHARD_SERVERS + " servers, " + SHARDS + " shards, " + REPLICAS + " replica each", since);
    since = System.nanoTime();
    for (int i = 0; i < QUERY_SERVICES; i++) {
      queryServices[i] = launchQueryService(i);
    }
    String job = submit();
    for (int i = 0; i < QUERY_SERVICES; i++) {
      awaitQueryService(i);
    }
    step("ingest job", "job " + job + " on " + flink.restUrl(), since);
    step("query services", String.join(", ", queryServiceUrls()), started);
  }

  /** The shards server {@code i} lays out as their primary, {@code first-last}. */
  static String shardRange(int i) {
    return i * SHARDS / SHARD_SERVERS + "-" + ((i + 1) * SHARDS / SHARD_SERVERS - 1);
  }

  private ShardServerProcess launchShardServer(int i) throws IOException {
    Path data = dir.resolve("shard-server-" + i);
    Files.createDirectories(data);
    return ShardServerProcess.launch("shard-server-" + i,
        JavaCommand.jar(repo.resolve("shard-server/target/shard-server.jar")).serverHeap("512m").jvmOptions(jvmFlags),
        data, shardServerPorts[i], data.resolve("shard-server.log"), List.of("--shards", shardRange(i),
            "--zookeeper", zookeeper.connectString(), "--zookeeper-root", ZOOKEEPER_ROOT,
            "--replicas", Integer.toString(REPLICAS)));
  }

  private ChildProcess launchQueryService(int i) throws IOException {
    return JavaCommand.jar(repo.resolve("query-service/target/query-service.jar")).serverHeap("512m")
        .jvmOptions(jvmFlags)
        .args("--port", Integer.toString(queryServicePorts[i]), "--shards", Integer.toString(SHARDS),
            "--placement", "zookeeper", "--policy", POLICY,
            "--zookeeper", zookeeper.connectString(), "--zookeeper-root", ZOOKEEPER_ROOT,
            "--bootstrap-servers", kafka.bootstrapServers(), "--flink-ui", flink.restUrl(),
            "--ingest-topic", TOPIC, "--written-offsets-group", WRITTEN_OFFSETS_GROUP)
        .start("query-service-" + i, dir.resolve("query-service-" + i + ".log"));
  }

  private void awaitQueryService(int i) throws IOException, InterruptedException {
    URI health = URI.create(queryServiceUrls().get(i) + "/health");
    queryServices[i].awaitReady(READY_TIMEOUT, () -> http.send(HttpRequest.newBuilder(health)
        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  /** {@code bin/evenkeel submit} of the job's jar with the flags of compose.yaml's job; returns the job's id. */
  private String submit() throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("submit", "--flink-rest", flink.restUrl(), "--"));
    args.addAll(jobFlags(kafka.bootstrapServers(), zookeeper.connectString(), dir.resolve("checkpoints")));
    String said = EvenkeelPeer.run(repo, args);
    Matcher submitted = SUBMITTED.matcher(said);
    if (!submitted.find()) {
      throw new IOException("bin/evenkeel submit named no running job:\n" + said);
    }
    return submitted.group(1);
  }

  /** The ingest job's flags, those of the job in compose.yaml, for these addresses. */
  static List<String> jobFlags(String bootstrapServers, String zookeeper, Path checkpoints) {
    return List.of("--bootstrap-servers", bootstrapServers, "--topic", TOPIC,
        "--zookeeper", zookeeper, "--zookeeper-root", ZOOKEEPER_ROOT,
        "--shards", Integer.toString(SHARDS), "--placement", "zookeeper", "--policy", POLICY,
        "--parallelism", Integer.toString(PARALLELISM), "--checkpoint-dir", checkpoints.toUri().toString());
  }

  /**
   * Waits until every shard server is live, every shard has its primary and {@link #REPLICAS} in-sync replicas, no
   * copy is moving and the servers hold as many copies as each other (to within one), for 3 s on end: the master
   * plans a rebalancing step within 2 s of the last; at most {@code timeout}.
   */
  public void awaitShardsAtRest(Duration timeout) throws IOException, InterruptedException {
    awaitClusterState(timeout, Duration.ofSeconds(3),
        "every shard with a primary and an in-sync replica, evenly on " + SHARD_SERVERS + " servers",
        state -> state.servers().size() == SHARD_SERVERS && state.shards().size() == SHARDS && state.atRest()
            && state.shards().values().stream().allMatch(copies -> copies.getReplicas().size() == REPLICAS)
            && state.servers().keySet().stream().mapToLong(state::copiesOn).max().orElse(0)
                - state.servers().keySet().stream().mapToLong(state::copiesOn).min().orElse(0) <= 1);
  }

  /** Waits until every shard has a live primary (a lost server's primaries promoted), at most {@code timeout}. */
  public void awaitPrimaries(Duration timeout) throws IOException, InterruptedException {
    awaitClusterState(timeout, Duration.ZERO, "a live primary for every shard",
        state -> state.shards().size() == SHARDS
            && state.shards().keySet().stream().allMatch(shard -> state.livePrimary(shard).isPresent()));
  }

  /** Waits until {@code done} has held for {@code stable} on end, at most {@code timeout}. */
  private void awaitClusterState(Duration timeout, Duration stable, String what, Predicate<ClusterState> done)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long since = -1;
    while (since < 0 || System.nanoTime() - since < stable.toNanos()) {
      if (!done.test(clusterState.current())) {
        since = -1;
      } else if (since < 0) {
        since = System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("no " + what + " after " + timeout + "; the cluster state: " + describe());
      }
      Thread.sleep(100);
    }
  }

  private String describe() {
    ClusterState state = clusterState.current();
    StringBuilder said = new StringBuilder("servers " + state.servers().keySet());
    for (ShardCopies copies : state.shards().values()) {
      said.append("; ").append(copies.getShard()).append(": ").append(copies.getPrimary()).append(" + ")
          .append(copies.getReplicas()).append(" in sync ").append(copies.getInSync());
    }
    return said.toString();
  }

  /** Where the first query service answers, {@code http://127.0.0.1:port}. */
  public String queryServiceUrl() {
    return queryServiceUrls().get(0);
  }

  /** Where each query service answers; {@link #rows} asks them in turn, as a client-side list of hosts does. */
  public List<String> queryServiceUrls() {
    return Arrays.stream(queryServicePorts).mapToObj(port -> "http://127.0.0.1:" + port).toList();
  }

  @Override
  public JsonNode rows(String query, List<Object> params) throws IOException, InterruptedException {
    return sql.rows(query, params);
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  public ZooKeeperEnsemble zookeeper() {
    return zookeeper;
  }

  public KafkaCluster kafka() {
    return kafka;
  }

  public FlinkSessionCluster flink() {
    return flink;
  }

  /** Kills the leading JobManager with SIGKILL; its standby leads next. */
  public void killLeadingJobManager() throws InterruptedException {
    flink.jobManagers().get(leadingJobManager).kill();
    leadingJobManager = (leadingJobManager + 1) % JOB_MANAGERS;
  }

  /** Starts every JobManager not running again on its ports: they stand by. */
  public void restartStoppedJobManagers() throws IOException, InterruptedException {
    for (int i = 0; i < JOB_MANAGERS; i++) {
      if (!flink.jobManagers().get(i).isAlive()) {
        flink.restartJobManager(i, READY_TIMEOUT);
      }
    }
  }

  /** Shard server {@code i} as it runs now. */
  public ShardServerProcess shardServer(int i) {
    return shardServers.get(i);
  }

  /** Starts shard server {@code i} again on its port and data, as its supervisor would, and waits until it serves. */
  public void restartShardServer(int i) throws IOException, InterruptedException {
    shardServers.set(i, launchShardServer(i).awaitReady(READY_TIMEOUT));
  }

  /**
   * Restarts every process in turn as an operator upgrading the deployment would, each stopped with SIGTERM and
   * waited for before the next: the ZooKeeper servers, the Kafka nodes (the next once every partition is fully
   * replicated again), the task managers (each replaced by a new one), the standby JobManager and then the leader,
   * the shard servers (the next once every shard has its in-sync replica again), and the query services. Prints each.
   */
  public void rollingRestart() throws Exception {
    for (int i = 0; i < ZOOKEEPER_SERVERS; i++) {
      long since = System.nanoTime();
      zookeeper.stop(i);
      zookeeper.restart(i);
      step("  zookeeper-" + i, "restarted, " + zookeeper.modes().get(i), since);
    }
    for (int i = 0; i < KAFKA_NODES; i++) {
      long since = System.nanoTime();
      kafka.stop(i);
      kafka.restart(i);
      kafka.awaitFullyReplicated(READY_TIMEOUT);
      step("  kafka-" + i, "restarted, every partition in sync", since);
    }
    for (ChildProcess taskManager : flink.taskManagers()) {
      if (taskManager.isAlive()) {
        long since = System.nanoTime();
        taskManager.stop(Duration.ofSeconds(30));
        flink.startTaskManager();
        step("  " + taskManager.name(), "replaced", since);
      }
    }
    int leader = leadingJobManager;
    for (int i : new int[] {(leader + 1) % JOB_MANAGERS, leader}) {
      long since = System.nanoTime();
      flink.restartJobManager(i, READY_TIMEOUT);
      leadingJobManager = i == leader ? (leader + 1) % JOB_MANAGERS : leader;
      step("  jobmanager-" + i, i == leader ? "restarted; the standby leads" : "restarted (standby)", since);
    }
    for (int i = 0; i < SHARD_SERVERS; i++) {
      long since = System.nanoTime();
      shardServers.get(i).close();
      awaitPrimaries(READY_TIMEOUT);
      restartShardServer(i);
      awaitShardsAtRest(READY_TIMEOUT);
      step("  shard-server-" + i, "restarted, every shard with an in-sync replica", since);
    }
    for (int i = 0; i < QUERY_SERVICES; i++) {
      long since = System.nanoTime();
      queryServices[i].stop(Duration.ofSeconds(30));
      queryServices[i] = launchQueryService(i);
      awaitQueryService(i);
      step("  query-service-" + i, "restarted", since);
    }
  }

  private void step(String what, String where, long since) {
    out.printf("  %-16s %s (%.1f s)%n", what, where, (System.nanoTime() - since) / 1e9);
    out.flush();
  }

  @Override
  public void close() throws InterruptedException {
    for (ChildProcess queryService : queryServices) {
      if (queryService != null) {
        queryService.close();
      }
    }
    if (flink != null) {
      flink.close();
    }
    if (clusterState != null) {
      clusterState.close();
    }
    if (clusterStateConnection != null) {
      clusterStateConnection.close();
    }
    for (ShardServerProcess server : shardServers) {
      server.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
