package io.evenkeel.shard.server;

import io.evenkeel.cluster.attributes.HotAttributeList;
import io.evenkeel.cluster.memory.ByteSize;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.cluster.options.ZooKeeperOptions;
import io.evenkeel.cluster.options.ZooKeeperSettings;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.shard.cluster.ClusterMember;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.HotAttributes;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.search.SegmentAggregates;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.shard.translog.Translog;
import io.evenkeel.shard.warmup.SearchWarmUp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Runs a shard server process. Prints {@code PORT: <n>} once it serves, so a parent process can find a port chosen
 * at run time ({@code --port 0}).
 */
@Command(name = "shard-server", mixinStandardHelpOptions = true,
    description = {"Serves Lucene shards over gRPC. Options may also come from a properties file (--config) whose "
        + "keys are the long option names without dashes, e.g. data-dir=/var/evenkeel.",
        "With --zookeeper it joins the cluster whose state is in that ZooKeeper: it registers, holds the copies the "
            + "state assigns (primaries and replicas), and takes part in electing the master that promotes replicas "
            + "and assigns them."})
public final class ShardServerMain implements Callable<Integer> {
  @Option(names = "--config", description = "Properties file with defaults for the options below.")
  Path config;

  @Option(names = "--data-dir", description = "Directory holding one folder per shard (default: ${DEFAULT-VALUE}).",
      defaultValue = "evenkeel-data/shard-server")
  Path dataDir;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "0", description = "Port to bind; 0 picks a free one (default: 0).")
  int port;

  @Option(names = "--shards", defaultValue = "",
      description = "The shards whose primary this server holds: numbers and ranges, e.g. 0-3,8. With --zookeeper: "
          + "the shards it lays out as their primary if the cluster state has no entry for them yet.")
  String shards;

  // Their defaults come from --config too: the default provider serves a mixin's options as the command's own.
  @Mixin
  private ZooKeeperOptions zookeeperOptions = new ZooKeeperOptions();

  @Option(names = "--zookeeper-session-timeout-ms", defaultValue = "10000",
      description = "How soon after this server dies the cluster notices (its ZooKeeper session expires) and promotes "
          + "replicas of its primaries (default: ${DEFAULT-VALUE}; ZooKeeper allows 2 to 20 ticks).")
  int zookeeperSessionTimeoutMs;

  @Option(names = "--replicas", defaultValue = "1",
      description = "With --zookeeper, when this server is the master: the replicas it keeps of every shard "
          + "(default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--rebalance", defaultValue = "true", arity = "1",
      description = "With --zookeeper, when this server is the master: even the servers' loads when the cluster is at "
          + "rest, moving copies onto a server that joins (and primaries between servers), one step at a time "
          + "(default: ${DEFAULT-VALUE}).")
  boolean rebalance;

  @Option(names = "--replica-of", paramLabel = "HOST:PORT=SHARDS", split = ",(?=[^,=]+:\\d+=)",
      description = "Shards this server holds a replica of, with their primary's server, e.g. "
          + "127.0.0.1:7710=0-7. The replica copies the primary's segment files and receives its writes.")
  List<String> replicaOf = List.of();

  @Option(names = "--replication", defaultValue = "physical",
      description = "How this server's replicas follow their primaries: physical (copy the primary's segment files; "
          + "they never index) or logical (index every forwarded change themselves, for comparison). Default: "
          + "${DEFAULT-VALUE}.")
  String replication;

  @Option(names = "--wait-for-copies", defaultValue = "all",
      description = "How many copies of a shard (its primary included) hold a write before it is acknowledged: "
          + "all (every in-sync copy, the default: a promoted replica then holds every acknowledged write) or a "
          + "number.")
  String waitForCopies;

  @Option(names = "--durability", defaultValue = "request",
      description = "request: fsync before each acknowledgement; interval: fsync every --sync-interval-ms.")
  String durability;

  @Option(names = "--sync-interval-ms", defaultValue = "200")
  long syncIntervalMs;

  @Option(names = "--refresh-interval-ms", defaultValue = "1000",
      description = "How often new writes become searchable (default: ${DEFAULT-VALUE}).")
  long refreshIntervalMs;

  @Option(names = "--commit-interval-ms", defaultValue = "30000")
  long commitIntervalMs;

  @Option(names = "--ram-buffer-mb", defaultValue = "64", description = "IndexWriter RAM buffer per shard.")
  double ramBufferMb;

  @Option(names = "--write-capacity", defaultValue = "0", paramLabel = "CHANGES_PER_SECOND",
      description = "The most changes a second each primary shard indexes; writes beyond it wait their turn. For"
          + " experiments that need a shard to be a bottleneck on a small machine. 0: no limit (default).")
  double writeCapacity;

  @Option(names = "--reindex-rate", defaultValue = "2000", paramLabel = "ROWS_PER_SECOND",
      description = "The most rows a second this server indexes again, in the background, for hot attribute keys"
          + " listed after the rows were written (default: ${DEFAULT-VALUE}; 0: none, filters on such keys then scan"
          + " those rows' stored attributes).")
  double reindexRate;

  @Option(names = "--hot-attributes", defaultValue = "", split = ",",
      description = "Attribute keys indexed as fields (frequency-based indexing) until the cluster's list in"
          + " ZooKeeper (which the query service publishes from the keys its queries use most) replaces them. Applies"
          + " to rows indexed from then on; older rows are answered by a scan of their stored attributes.")
  List<String> hotAttributes;

  @Option(names = "--tls-cert", paramLabel = "PEM", description = "This server's certificate: with --tls-key and "
      + "--tls-client-ca, serve mutual TLS only (clients must present a certificate the client CA signed).")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "PEM", description = "This server's private key (PKCS#8).")
  Path tlsKey;

  @Option(names = "--tls-client-ca", paramLabel = "PEM", description = "The CA that signs the clients' certificates.")
  Path tlsClientCa;

  @Option(names = ShardServer.MEMORY_FLAG, paramLabel = "SIZE", description = "The heap all searches and fetches "
      + "together may hold (their groups, hits and answers), e.g. 200m; over it a call is refused as busy"
      + " (default: 40%% of the heap).")
  String readMemory;

  @Option(names = ShardServer.REQUEST_MEMORY_FLAG, paramLabel = "SIZE", description = "The heap one search or fetch"
      + " call may hold; over it the query is refused as too large (default: 64m, at most " + ShardServer.MEMORY_FLAG
      + ").")
  String requestReadMemory;

  @Option(names = "--aggregation-cache", paramLabel = "SIZE", defaultValue = "16m", description = "The heap that keeps"
      + " each large segment's groups of recent aggregations, for the next query that asks the same of it (a segment"
      + " never changes); 0 keeps none (default: ${DEFAULT-VALUE}).")
  String aggregationCache;

  @Option(names = "--warm-up", negatable = true, defaultValue = "${env:EVENKEEL_WARM_UP:-true}",
      fallbackValue = "true", description = "After the start, write and search a throwaway shard of generated rows"
      + " (in <data-dir>/warm-up, at low priority), so that the first real queries do not pay for loading and"
      + " compiling the search code (default: on; EVENKEEL_WARM_UP=false turns it off, as the tests do).")
  boolean warmUp;

  @Option(names = "--writers", defaultValue = "ingest", split = ",",
      description = "With TLS: the client certificates' common names that may call Write; the others may only read"
          + " (default: ${DEFAULT-VALUE}).")
  List<String> writers;

  /** The exit code after a failed translog fsync. */
  static final int FAILED_SYNC_EXIT_CODE = 5;

  public static void main(String[] args) {
    AvroTrust.install();
    // A translog whose fsync failed may have lost acknowledged-to-be records the kernel reports written: the process
    // stops, as it does on OutOfMemoryError, so that the cluster fails its shards over and it restarts from disk.
    Translog.onFailedSync(e -> {
      System.err.println("shard-server: a translog fsync failed (" + e.getMessage() + "); stopping the process");
      Runtime.getRuntime().halt(FAILED_SYNC_EXIT_CODE);
    });
    CommandLine commandLine = new CommandLine(new ShardServerMain());
    commandLine.setDefaultValueProvider(new CommandLine.PropertiesDefaultProvider(configFile(args)));
    commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof IllegalArgumentException) {
        line.getErr().println("shard-server: " + e.getMessage());
        return CommandLine.ExitCode.USAGE;
      }
      throw e;
    });
    System.exit(commandLine.execute(args));
  }

  /** The --config file's properties, read before parsing so they can serve as defaults. */
  private static Properties configFile(String[] args) {
    Properties properties = new Properties();
    for (int i = 0; i < args.length; i++) {
      String path = args[i].startsWith("--config=") ? args[i].substring("--config=".length())
          : args[i].equals("--config") && i + 1 < args.length ? args[i + 1] : null;
      if (path != null) {
        try (InputStream in = Files.newInputStream(Path.of(path))) {
          properties.load(in);
        } catch (IOException e) {
          throw new IllegalArgumentException("cannot read --config " + path + ": " + e.getMessage(), e);
        }
      }
    }
    return properties;
  }

  @Override
  public Integer call() throws Exception {
    ZooKeeperSettings zookeeper = zookeeperOptions.settings();
    Set<String> hot = new TreeSet<>();
    hotAttributes.stream().map(String::strip).filter(key -> !key.isEmpty()).forEach(hot::add);
    boolean logical = switch (replication) {
      case "physical" -> false;
      case "logical" -> true;
      default -> throw new IllegalArgumentException("--replication is physical or logical; got: " + replication);
    };
    ShardSettings settings = new ShardSettings(Durability.parse(durability), syncIntervalMs, refreshIntervalMs,
        commitIntervalMs, ramBufferMb, hot, logical, writeCapacity).withReindexRate(reindexRate);
    ServerTls tls = tls();
    Set<Integer> primaries = shards.isBlank() ? Set.of() : parseShards(shards);
    Map<Integer, String> replicaShards = parseReplicaOf(replicaOf);
    if (zookeeper.given() && !replicaShards.isEmpty()) {
      throw new IllegalArgumentException("--replica-of and --zookeeper exclude each other: the cluster state assigns "
          + "replicas");
    }
    if (!zookeeper.given() && primaries.isEmpty() && replicaShards.isEmpty()) {
      throw new IllegalArgumentException("give --shards, --replica-of or --zookeeper: the server would hold nothing");
    }
    if (replicas < 0) {
      throw new IllegalArgumentException("--replicas must be >= 0; got: " + replicas);
    }
    // With ZooKeeper the cluster state decides what to hold; --shards only lays out shards it does not know yet.
    ShardServer server = new ShardServer(dataDir, !zookeeper.given() ? primaries : Set.of(), replicaShards,
        parseCopies(waitForCopies), settings, new InetSocketAddress(host, port), tls);
    server.readMemory(MemoryBudget.of(readMemory == null ? null : ByteSize.parse(readMemory),
        requestReadMemory == null ? null : ByteSize.parse(requestReadMemory), ShardServer.MEMORY_FLAG,
        ShardServer.REQUEST_MEMORY_FLAG));
    server.keptAggregations(new SegmentAggregates(ByteSize.parse(aggregationCache)));
    if (tls == null && !InetAddress.getByName(host).isLoopbackAddress()) {
      System.err.println("WARNING: the shard server listens on " + host + " without authentication: anyone who reaches"
          + " it can read, overwrite or delete any tenant's rows");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (IOException e) {
        System.err.println("shard server did not close cleanly: " + e);
      } finally {
        stopped.countDown();
      }
    }, "shard-server-shutdown"));
    CuratorFramework client = null;
    if (zookeeper.given()) {
      client = zookeeper.startClient(new ExponentialBackoffRetry(200, 10), zookeeperSessionTimeoutMs);
      // Before the shards open, so that a translog replayed at start indexes under the cluster's list.
      HotAttributeList list = new HotAttributeList(client, zookeeper.root()).start();
      list.addListener(published -> follow(published, settings.hotAttributes()));
    }
    int bound = server.start();
    if (client != null) {
      CuratorFramework zk = client;
      ClusterMember member = new ClusterMember(server, client, zookeeper.root(), primaries, replicas, rebalance);
      member.start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        member.close();
        zk.close();
      }, "cluster-member-shutdown"));
    }
    System.out.println("PORT: " + bound);
    System.out.flush();
    if (warmUp) {
      warmUp(dataDir.resolve("warm-up"));
    }
    stopped.await();
    return 0;
  }

  /** Runs {@link SearchWarmUp} on a thread of its own, at the lowest priority: real work comes first. */
  private static void warmUp(Path directory) {
    Thread thread = new Thread(() -> {
      try {
        System.out.println("search warm-up took " + SearchWarmUp.run(directory).millis() + " ms");
      } catch (IOException | RuntimeException e) {
        System.err.println("WARNING: the search warm-up failed, so the first queries may be slow: " + e);
      }
    }, "search-warm-up");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }

  /**
   * Indexes the cluster's published list from now on; until one is published, the {@code --hot-attributes} list
   * stays. Keys no row could hold (empty, or with ';' or ':') are left out.
   */
  private static void follow(HotAttributeList.Published published, HotAttributes hot) {
    if (published.version() < 0) {
      return;
    }
    Set<String> keys = new TreeSet<>();
    for (String key : published.keys()) {
      if (HotAttributeList.isValidKey(key)) {
        keys.add(key);
      } else {
        System.err.println("WARNING: the cluster's hot attribute list holds '" + key + "', which no row can hold;"
            + " it is left out");
      }
    }
    if (hot.set(keys)) {
      System.out.println("hot attribute keys (cluster list version " + published.version() + "): " + keys);
    }
  }

  /** The TLS settings, when all three files are given; none of them means plaintext. */
  private ServerTls tls() {
    int given = (tlsCert == null ? 0 : 1) + (tlsKey == null ? 0 : 1) + (tlsClientCa == null ? 0 : 1);
    if (given == 0) {
      return null;
    }
    if (given < 3) {
      throw new IllegalArgumentException("--tls-cert, --tls-key and --tls-client-ca go together");
    }
    Set<String> names = new TreeSet<>();
    writers.stream().map(String::strip).filter(name -> !name.isEmpty()).forEach(names::add);
    return new ServerTls(tlsCert, tlsKey, tlsClientCa, names);
  }

  /** "host:port=0-3,8" entries → shard → "host:port". */
  static Map<Integer, String> parseReplicaOf(List<String> entries) {
    Map<Integer, String> primaries = new TreeMap<>();
    for (String entry : entries) {
      int equals = entry.indexOf('=');
      int colon = entry.lastIndexOf(':', equals);
      if (equals < 0 || colon <= 0) {
        throw new IllegalArgumentException("--replica-of takes HOST:PORT=SHARDS, e.g. 127.0.0.1:7710=0-7; got: '"
            + entry + "'");
      }
      String primary = entry.substring(0, equals).strip();
      for (int shard : parseShards(entry.substring(equals + 1))) {
        String previous = primaries.put(shard, primary);
        if (previous != null && !previous.equals(primary)) {
          throw new IllegalArgumentException("--replica-of names two primaries for shard " + shard + ": " + previous
              + " and " + primary);
        }
      }
    }
    return primaries;
  }

  static int parseCopies(String text) {
    if (text.strip().equalsIgnoreCase("all")) {
      return Replicas.ALL_IN_SYNC;
    }
    try {
      int copies = Integer.parseInt(text.strip());
      if (copies >= 1) {
        return copies;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--wait-for-copies takes 'all' or a number >= 1; got: '" + text + "'");
  }

  /** "0-3,8" → {0, 1, 2, 3, 8}. */
  static Set<Integer> parseShards(String text) {
    Set<Integer> ids = new TreeSet<>();
    for (String part : text.split(",")) {
      String range = part.strip();
      try {
        int dash = range.indexOf('-');
        int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
        int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
        if (first < 0 || last < first) {
          throw new NumberFormatException();
        }
        for (int id = first; id <= last; id++) {
          ids.add(id);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--shards takes numbers and ranges like 0-3,8; got: '" + text + "'");
      }
    }
    return ids;
  }
}
