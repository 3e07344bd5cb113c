package io.evenkeel.launcher.local;

import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.launcher.cli.DurationConverter;
import io.evenkeel.launcher.cli.UserError;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.schemas.table.ColumnMapping;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code evenkeel local}: a complete Evenkeel on loopback, supervised until Ctrl-C, {@code --duration} or a death. */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = {"Starts ZooKeeper, a KRaft Kafka broker, the shard servers, the Flink ingest job (with its web UI), "
        + "the query service (SQL and the console) and, unless --no-replay, a Single's-Day replayer, each as its own "
        + "process; prints a status line every few seconds; Ctrl-C stops everything in reverse order.",
        "Data and logs live in --data-dir; a restart on it keeps the data."})
public final class LocalCommand implements Callable<Integer> {

  @Option(names = "--data-dir", defaultValue = "evenkeel-data", description = "Where all data and logs live (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--wipe", description = "Delete the data directory first and start fresh.")
  boolean wipe;

  @Option(names = "--shard-servers",
      description = "Shard-server processes (default: the data directory's recorded layout, else 1).")
  Integer shardServers;

  @Option(names = "--shards", description = "Shards N (default: the data directory's recorded layout, else 8).")
  Integer shards;

  @Option(names = "--replicas", description = "Replicas of every shard, each on another shard server: they copy the "
      + "primary's segment files and take over if its server dies (default: 1, and 2 shard servers for a new data "
      + "directory; 0 when a recorded layout has a single server).")
  Integer replicas;

  @Option(names = "--shard-write-capacity", defaultValue = "0", paramLabel = "CHANGES_PER_SECOND",
      description = "The most changes a second each primary shard indexes (0: no limit, the default): makes shards a"
          + " bottleneck on a small machine, as ESDB's skew experiments need.")
  double shardWriteCapacity;

  @Option(names = "--replication", defaultValue = "physical",
      description = "physical: replicas copy the primary's segment files; logical: they index every change themselves "
          + "(to compare; default: ${DEFAULT-VALUE}).")
  String replication;

  @Option(names = "--policy", defaultValue = "dynamic", description = "Routing: hashing, double:L, dynamic (ESDB's dynamic secondary"
      + " hashing) or logstore (LogStore's max-flow tables) (default: ${DEFAULT-VALUE}).")
  String policy;

  @Option(names = "--base-port", defaultValue = "7700",
      description = "First of the fixed ports: +0 ZooKeeper, +1 Kafka, +2 Kafka controller, +3 Flink UI, +4 query "
          + "service, +10.. shard servers (default: ${DEFAULT-VALUE}).")
  int basePort;

  @Option(names = "--no-replay", description = "Start an empty system: no Single's-Day replayer.")
  boolean noReplay;

  @Option(names = "--replay-rate", defaultValue = "1000", description = "Replayed changes/s after the kickoff surge (default: ${DEFAULT-VALUE}).")
  double replayRate;

  @Option(names = "--surge-factor", defaultValue = "4", description = "Rate multiplier of the 30 s kickoff surge (default: ${DEFAULT-VALUE}).")
  double surgeFactor;

  @Option(names = "--theta", defaultValue = "1.0", description = "Zipf skew of the replayed tenants (default: ${DEFAULT-VALUE}).")
  double theta;

  @Option(names = "--api-keys", paramLabel = "FILE", description = "The query service requires API keys from this"
      + " file (see docs/QUERY-SERVICE.md); `sql` and `load --wait` then take --key-file (or EVENKEEL_API_KEY).")
  Path apiKeys;

  @Option(names = "--secure", description = "Mutual TLS between every process and the shard servers (a throw-away CA"
      + " in <data-dir>/tls; only the ingest job may write), and API keys: --api-keys, or a new admin key in"
      + " <data-dir>/admin.key.")
  boolean secure;

  @Option(names = "--topic", defaultValue = "transaction-logs", description = "The ingest topic (default: ${DEFAULT-VALUE}).")
  String topic;

  @Option(names = "--cdc", paramLabel = "JDBC_URL", description = "Also capture a MySQL or MariaDB table by CDC:"
      + " jdbc:mariadb://host:port/database?user=...&password=... (binlog_format=ROW; docs/CDC.md). With --cdc-table.")
  String cdcSource;

  @Option(names = "--cdc-password-file", paramLabel = "FILE", description = "The --cdc user's password, the file's"
      + " first line: kept off command lines (and ps).")
  Path cdcPasswordFile;

  @Option(names = "--cdc-table", description = "The table --cdc captures.")
  String cdcTable;

  @Option(names = "--cdc-columns", defaultValue = "", paramLabel = "MAPPING", description = "Which column of the"
      + " captured table feeds each column of transaction_logs where the names differ, e.g."
      + " tenant_id=seller_id,row_id=order_id,created_time=created_at.")
  String cdcColumns;

  @Option(names = "--cdc-datetime-zone", defaultValue = "UTC",
      description = "The zone of the captured table's DATETIME values (default: ${DEFAULT-VALUE}).")
  String cdcDatetimeZone;

  @Option(names = "--cdc-connector", defaultValue = "mariadb",
      description = "Debezium's connector: mariadb, or mysql for a MySQL server (default: ${DEFAULT-VALUE}).")
  String cdcConnector;

  @Option(names = "--job-option", paramLabel = "NAME=VALUE",
      description = "An option of the ingest job, without its leading dashes, e.g. sink-lanes=false or"
          + " cool-down-ms=60000 (IngestJobMain --help lists them); repeatable.")
  List<String> jobOptions = new ArrayList<>();

  @Option(names = "--duration", converter = DurationConverter.class,
      description = "Stop by itself after this long, e.g. 90s, 5m, 1h (default: run until Ctrl-C).")
  Duration duration;

  @Option(names = "--status-interval", defaultValue = "5s", converter = DurationConverter.class,
      description = "How often to print the status line (default: ${DEFAULT-VALUE}).")
  Duration statusInterval;

  @Override
  public Integer call() throws Exception {
    StackOptions options = options();
    EvenkeelHome home = EvenkeelHome.fromSystemProperty();
    // Fail on missing jars before starting anything.
    home.shardServerJar();
    home.ingestJobClasspath();
    if (options.cdc() != null) {
      home.cdcClasspath();
    }
    if (Files.exists(dataDir.resolve(StackInfo.FILE))) {
      long pid = StackInfo.read(dataDir).pid();
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        throw new UserError("a stack (pid " + pid + ") is already running on " + dataDir);
      }
    }
    if (wipe) {
      deleteRecursively(dataDir);
    }
    Files.createDirectories(dataDir);
    // The stack's files are private (bin/evenkeel runs under umask 077); so is the directory, whoever made it.
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
    AddServerRequest.take(dataDir); // left by an add-server that gave up: not this run's

    PrintStream out = System.out;
    LinkedBlockingQueue<String> attention = new LinkedBlockingQueue<>();
    CountDownLatch finished = new CountDownLatch(1);
    LocalStack stack = new LocalStack(home, options, out);
    stack.onDeath(dead -> attention.add("died:" + dead.name()));
    // SIGINT/SIGTERM: ask this thread to stop the stack in order, and keep the JVM alive until it has.
    Thread hook = new Thread(() -> {
      attention.add("signal");
      try {
        finished.await(3, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "evenkeel-local-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return run(stack, options, attention, out);
    } finally {
      out.println("stopping");
      stack.close();
      out.println("stopped");
      out.flush();
      finished.countDown();
    }
  }

  private int run(LocalStack stack, StackOptions options, LinkedBlockingQueue<String> attention, PrintStream out)
      throws Exception {
    long t0 = System.nanoTime();
    out.printf("evenkeel local: data in %s, logs in %s%n", options.dataDir(), options.logs());
    StackInfo info;
    try {
      info = stack.start();
    } catch (IOException e) {
      out.println("evenkeel local: could not start: " + e.getMessage());
      return 1;
    }
    if (attention.peek() != null) {
      return reportAttention(attention.poll(), stack, out);
    }
    out.printf("%nEvenkeel is ready (%.1f s).%n", (System.nanoTime() - t0) / 1e9);
    printWelcome(info, options, out);

    long deadline = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    try (StatusLine status = new StatusLine(info, stack.cluster(), stack.zookeeperCredentials())) {
      // Fixed rate: gathering a status line takes time of its own on a busy machine.
      long nextLine = System.nanoTime() + statusInterval.toNanos();
      while (true) {
        long now = System.nanoTime();
        if (now >= deadline) {
          out.println("--duration " + duration.toSeconds() + " s reached");
          return 0;
        }
        // At most half a second, so that a request to add a server is taken up at once.
        String event = attention.poll(Math.max(0, Math.min(Math.min(deadline, nextLine) - now,
            TimeUnit.MILLISECONDS.toNanos(500))), TimeUnit.NANOSECONDS);
        if (AddServerRequest.take(options.dataDir())) {
          Thread adding = new Thread(() -> {
            try {
              stack.addShardServer();
            } catch (Exception e) {
              out.printf("adding a shard server failed: %s%n", e.getMessage());
              AddServerRequest.fail(options.dataDir(), String.valueOf(e.getMessage()));
            }
          }, "add shard server");
          adding.setDaemon(true);
          adding.start();
        }
        if (event != null && event.startsWith("died:") && stack.restartable(event.substring("died:".length()))) {
          String name = event.substring("died:".length());
          out.printf("%s died; %s.%n", name, stack.restartNote(name));
          Duration delay = stack.restartDelay(name);
          Thread restart = new Thread(() -> {
            try {
              Thread.sleep(delay.toMillis());
              stack.restart(name);
              out.printf("%s restarted%n", name);
            } catch (Exception e) {
              out.printf("%s could not restart: %s%n", name, e.getMessage());
            }
          }, "restart " + name);
          restart.setDaemon(true);
          restart.start();
          continue;
        }
        if (event != null) {
          return reportAttention(event, stack, out);
        }
        if (System.nanoTime() >= nextLine) {
          out.println(status.line());
          out.flush();
          nextLine = Math.max(nextLine + statusInterval.toNanos(), System.nanoTime());
        }
      }
    }
  }

  /** A signal ends the run normally; a component's death is reported with the end of its log. */
  private static int reportAttention(String event, LocalStack stack, PrintStream out) {
    if (event.equals("signal")) {
      return 0;
    }
    String name = event.substring("died:".length());
    for (ChildProcess process : stack.processes()) {
      if (process.name().equals(name)) {
        out.printf("%n%s died (exit code %d); %s%n%n", name, process.onExit().join(), process.tailReport(30));
      }
    }
    return 1;
  }

  private static void printWelcome(StackInfo info, StackOptions options, PrintStream out) {
    out.printf("  Flink web UI    %s%n", info.flinkUi());
    out.printf("  query service   %s/sql (POST {\"sql\": ...}), %s/health%n", info.queryService(),
        info.queryService());
    out.printf("  console         %s/console (SQL, hot tenants, rules, cluster)%n", info.queryService());
    if (options.secure()) {
      out.printf("  security        mutual TLS to the shard servers (CA in %s), ZooKeeper ACLs, API keys %s%n",
          options.dataDir().resolve("tls"), options.apiKeys() != null ? "from " + options.apiKeys()
              : "in " + options.dataDir().resolve("api-keys"));
      Path adminKey = options.dataDir().resolve("admin.key");
      if (options.apiKeys() == null && Files.exists(adminKey)) {
        // The path only: this output often goes to a log that others may read.
        out.printf("  admin key       in %s (readable by you alone: sql and load take --key-file)%n", adminKey);
      }
    }
    out.printf("  Kafka           %s, topic %s%n", info.bootstrapServers(), info.topic());
    out.printf("  ZooKeeper       %s, rules under %s/rules, cluster state under %s/cluster%n", info.zookeeper(),
        info.zookeeperRoot(), info.zookeeperRoot());
    for (StackInfo.ShardServer server : info.shardServers()) {
      out.printf("  shard server    %s, laid out with the primaries of shards %d-%d%n", server.address(),
          server.firstShard(), server.lastShard());
    }
    out.println("  add a server    bin/evenkeel add-server (the master moves copies onto it)");
    out.println();
    out.println("Sample queries: bin/evenkeel sql \"...\", or bin/evenkeel sql for a prompt");
    out.println("  SELECT tenant_id, COUNT(*) AS n FROM transaction_logs GROUP BY tenant_id ORDER BY n DESC LIMIT 10;");
    out.println("  SELECT row_id, title, price, status FROM transaction_logs WHERE tenant_id = 42 "
        + "ORDER BY created_time DESC LIMIT 5;");
    out.println("  SELECT status, COUNT(*), SUM(price) FROM transaction_logs WHERE tenant_id = 42 "
        + "AND MATCH(title) AGAINST('w1 w2') GROUP BY status;");
    out.println("Load your own rows:  bin/evenkeel load rows.jsonl   (or a CSV file with a header)");
    out.println("Stop:                Ctrl-C");
    out.println();
    out.flush();
  }

  private StackOptions options() throws IOException {
    Optional<StackLayout> recorded = wipe ? Optional.empty() : StackLayout.recorded(dataDir);
    // A new data directory gets a server for each copy of a shard; a recorded one keeps its servers.
    Integer servers = shardServers != null || recorded.isPresent() ? shardServers
        : Math.max(1, (replicas == null ? 1 : replicas) + 1);
    StackLayout layout = StackLayout.choose(shards, servers, recorded);
    int copies = replicas != null ? replicas : Math.min(1, layout.shardServers() - 1);
    if (!replication.equals("physical") && !replication.equals("logical")) {
      throw new UserError("--replication is physical or logical; got: " + replication);
    }
    if (copies < 0 || copies >= layout.shardServers()) {
      throw new UserError("--replicas " + copies + " needs at least " + (copies + 1) + " shard servers (a shard's "
          + "copies never share one); got " + layout.shardServers() + (copies < 0 ? "; and it must be >= 0" : ""));
    }
    StackPorts ports;
    try {
      ports = new StackPorts(basePort, layout.shardServers());
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    if (layout.shards() < layout.shardServers()) {
      throw new UserError("--shards must be >= --shard-servers (each server hosts at least one); got: "
          + layout.shards() + " shards for " + layout.shardServers() + " servers");
    }
    try {
      PolicySpec.parse(policy);
    } catch (IllegalArgumentException e) {
      throw new UserError("--policy: " + e.getMessage());
    }
    if (!noReplay && !(replayRate > 0)) {
      throw new UserError("--replay-rate must be > 0 (use --no-replay for none); got: " + replayRate);
    }
    if (!(surgeFactor >= 1)) {
      throw new UserError("--surge-factor must be >= 1; got: " + surgeFactor);
    }
    if (!(theta >= 0)) {
      throw new UserError("--theta must be >= 0; got: " + theta);
    }
    if (apiKeys != null && !Files.isReadable(apiKeys)) {
      throw new UserError("--api-keys: cannot read " + apiKeys);
    }
    if (!(shardWriteCapacity >= 0)) {
      throw new UserError("--shard-write-capacity must be >= 0; got: " + shardWriteCapacity);
    }
    for (String option : jobOptions) {
      if (option.startsWith("-") || option.indexOf('=') < 1) {
        throw new UserError("--job-option takes NAME=VALUE without leading dashes, e.g. sink-lanes=false; got: "
            + option);
      }
    }
    return new StackOptions(dataDir, ports, layout.shards(), policy, noReplay ? 0 : replayRate, surgeFactor, theta,
        topic, apiKeys == null ? null : apiKeys.toAbsolutePath(), secure, copies, replication, shardWriteCapacity,
        cdcOptions(), jobOptions.stream().map(option -> "--" + option).toList());
  }

  private CdcOptions cdcOptions() {
    if (cdcSource == null) {
      if (cdcTable != null) {
        throw new UserError("--cdc-table needs --cdc (the database's JDBC URL)");
      }
      return null;
    }
    if (!cdcSource.startsWith("jdbc:mariadb://") && !cdcSource.startsWith("jdbc:mysql://")) {
      throw new UserError("--cdc is a jdbc:mariadb:// or jdbc:mysql:// URL; got: " + cdcSource);
    }
    if (cdcTable == null || cdcTable.isBlank()) {
      throw new UserError("--cdc needs --cdc-table (the table to capture)");
    }
    try {
      ColumnMapping.parse(cdcColumns);
      ZoneId.of(cdcDatetimeZone);
    } catch (IllegalArgumentException | DateTimeException e) {
      throw new UserError("--cdc-columns / --cdc-datetime-zone: " + e.getMessage());
    }
    if (!cdcConnector.equals("mariadb") && !cdcConnector.equals("mysql")) {
      throw new UserError("--cdc-connector is mariadb or mysql; got: " + cdcConnector);
    }
    if (cdcPasswordFile != null && !Files.isReadable(cdcPasswordFile)) {
      throw new UserError("--cdc-password-file " + cdcPasswordFile + " cannot be read");
    }
    return new CdcOptions(cdcSource, cdcTable, cdcColumns, cdcDatetimeZone, cdcConnector,
        cdcPasswordFile == null ? null : cdcPasswordFile.toAbsolutePath());
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
