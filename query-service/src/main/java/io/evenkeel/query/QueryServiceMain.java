package io.evenkeel.query;

import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.memory.ByteSize;
import io.evenkeel.cluster.memory.MemoryBudget;
import io.evenkeel.cluster.options.ClientTlsOptions;
import io.evenkeel.cluster.options.PlacementOptions;
import io.evenkeel.cluster.options.PlacementSettings;
import io.evenkeel.cluster.options.ZooKeeperOptions;
import io.evenkeel.cluster.options.ZooKeeperSettings;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.query.auth.ApiKeys;
import io.evenkeel.query.console.ClusterOverview;
import io.evenkeel.query.console.Console;
import io.evenkeel.query.console.HotTenantFeed;
import io.evenkeel.query.frequency.ClusterHotAttributes;
import io.evenkeel.query.frequency.HotAttributePublisher;
import io.evenkeel.query.http.SqlHttpServer;
import io.evenkeel.query.searchable.SearchableWaits;
import io.evenkeel.query.searchable.WrittenOffsets;
import io.evenkeel.query.optimize.OptimizerRules;
import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.warmup.QueryWarmUp;
import io.evenkeel.router.policy.PolicyOptions;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.codec.AvroTrust;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** Runs the query service. Prints {@code PORT: <n>} once it serves (for {@code --port 0}). */
@Command(name = "query-service", mixinStandardHelpOptions = true,
    description = {"Answers SQL on transaction_logs over HTTP (POST /sql) from the shard servers.",
        "It needs --shards and --placement. With --zookeeper it follows the cluster in that ZooKeeper: with --policy"
            + " dynamic or logstore its committed rule list (instead of --rules; logstore's tables need it), and its"
            + " hot attribute list, which this service helps publish. Without --zookeeper, --policy dynamic routes by"
            + " the --rules list."})
public final class QueryServiceMain implements Callable<Integer> {
  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "0", description = "HTTP port; 0 picks a free one (default: 0).")
  int port;

  @Mixin
  private PlacementOptions placementOptions = new PlacementOptions();

  @Mixin
  private PolicyOptions policyOptions = new PolicyOptions();

  @Option(names = "--rules", defaultValue = "",
      description = "For --policy dynamic, a static rule list: time:L:tenant,tenant;... e.g. 0:4:17,23;1700000000000:8:17")
  String rules;

  @Option(names = "--read-from", defaultValue = "primaries",
      description = "With --placement zookeeper: primaries, or replicas (a live in-sync replica when a shard has one; "
          + "answers lag the primary by the replica's copy lag). Default: ${DEFAULT-VALUE}.")
  String readFrom;

  @Mixin
  private ZooKeeperOptions zookeeperOptions = new ZooKeeperOptions();

  /** Why the rule list may be out of date now (null: it is not); set by {@link #routing}. */
  private Supplier<String> staleRules = () -> null;

  @Option(names = "--max-concurrent-queries", defaultValue = "" + SqlHttpServer.DEFAULT_MAX_CONCURRENT_QUERIES,
      description = "Queries answered at once; more get 503 (default: ${DEFAULT-VALUE}).")
  int maxConcurrentQueries;

  @Option(names = QueryService.MEMORY_FLAG, paramLabel = "SIZE", description = "The heap all running queries together"
      + " may hold for the shards' answers and what is made of them, e.g. 200m; over it a query gets 429 (default: 40%%"
      + " of the heap).")
  String queryMemory;

  @Option(names = QueryService.REQUEST_MEMORY_FLAG, paramLabel = "SIZE", description = "The heap one query may hold;"
      + " over it the query gets 400 naming the way out (default: 64m, at most " + QueryService.MEMORY_FLAG + ").")
  String requestQueryMemory;

  @Option(names = "--max-result-rows", defaultValue = "" + QueryService.DEFAULT_MAX_RESULT_ROWS, description = "The"
      + " most rows one answer holds; a larger answer is a 400 (add a LIMIT or page) (default: ${DEFAULT-VALUE}).")
  long maxResultRows;

  @Option(names = "--allowed-hosts", defaultValue = "", split = ",", paramLabel = "NAME", description = "Host names"
      + " besides those of --host that clients reach the service by (a proxy's, a DNS name); any other Host header is"
      + " refused, so a web page cannot rebind a name of its own to this address (default: --host's names; any"
      + " name when --host is a wildcard address).")
  List<String> allowedHosts;

  @Option(names = "--max-concurrent-queries-per-tenant", defaultValue = ""
      + QueryService.DEFAULT_MAX_CONCURRENT_PER_TENANT, description = "Queries one tenant key, or one tenant a query"
      + " names, may run at once (queries naming no single tenant share one such share); more get 429"
      + " (default: ${DEFAULT-VALUE}).")
  int maxConcurrentPerTenant;

  @Option(names = "--warm-up", negatable = true, defaultValue = "${env:EVENKEEL_WARM_UP:-true}",
      fallbackValue = "true", description = "After the start, run the commonest statements over a time window no row"
      + " has, at low priority, so that the first real queries do not pay for loading the SQL parser and connecting to"
      + " the shard servers (default: on; EVENKEEL_WARM_UP=false turns it off, as the tests do).")
  boolean warmUp;

  @Option(names = "--deadline-ms", defaultValue = "5000",
      description = "How long a query may wait for its shards (default: ${DEFAULT-VALUE}).")
  long deadlineMs;

  @Option(names = "--scan-columns", defaultValue = "status", split = ",",
      description = "Columns checked in doc values over other predicates' candidates (default: ${DEFAULT-VALUE}).")
  List<String> scanColumns;

  @Option(names = "--hot-attributes", defaultValue = "", split = ",",
      description = "Attribute keys whose filters go to the shards' index, until the cluster's list in ZooKeeper"
          + " (with --zookeeper) replaces them.")
  List<String> hotAttributes;

  @Option(names = "--hot-attributes-top", defaultValue = "30",
      description = "With --zookeeper: publish the cluster's hot attribute list, the keys queries use most, at most"
          + " this many; 0 publishes none (the list is still followed). Default: ${DEFAULT-VALUE}.")
  int hotAttributesTop;

  @Option(names = "--hot-attributes-min-queries", defaultValue = "100",
      description = "The queries in a window that make a key hot; a listed key stays above half of it."
          + " Default: ${DEFAULT-VALUE}.")
  long hotAttributesMinQueries;

  @Option(names = "--hot-attributes-interval-ms", defaultValue = "60000",
      description = "How often the list is chosen again. Default: ${DEFAULT-VALUE}.")
  long hotAttributesIntervalMs;

  @Option(names = "--hot-attributes-window", defaultValue = "10",
      description = "How many intervals the queries are counted over. Default: ${DEFAULT-VALUE}.")
  int hotAttributesWindow;

  @Option(names = "--api-keys", paramLabel = "FILE",
      description = "Require an API key on every call but /health: the key file (one per line: '<id> <bcrypt hash>"
          + " admin' or '<id> <bcrypt hash> tenant 7,9'), read again when it changes.")
  Path apiKeys;

  @Mixin
  private ClientTlsOptions tlsOptions = new ClientTlsOptions();

  @Option(names = "--https-keystore", paramLabel = "P12", description = "Serve HTTPS with this PKCS#12 key store "
      + "(with --https-password-file) instead of HTTP.")
  Path httpsKeyStore;

  @Option(names = "--https-password-file", paramLabel = "FILE", description = "The key store's password.")
  Path httpsPassword;

  @Option(names = "--new-key", paramLabel = "ID", description = "Print a new random key for ID and the key-file line"
      + " for it (role from --new-key-role), then exit.")
  String newKey;

  @Option(names = "--new-key-role", defaultValue = "admin",
      description = "With --new-key: admin, or tenant:7,9 (default: ${DEFAULT-VALUE}).")
  String newKeyRole;

  @Option(names = "--bootstrap-servers", description = "The ingest job's Kafka: the console shows the hot tenants "
      + "from the job's window summaries there (--summary-topic), and GET /searchable reads how far the job has "
      + "written (--written-offsets-group). Without it the console shows none and /searchable is a 404.")
  String bootstrapServers;

  @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties (security) for "
      + "--bootstrap-servers, as the ingest job's --kafka-config.")
  Path kafkaConfig;

  @Option(names = "--summary-topic", defaultValue = "tenant-window-summaries",
      description = "The ingest job's window summaries (default: ${DEFAULT-VALUE}).")
  String summaryTopic;

  @Option(names = "--ingest-topic", defaultValue = "transaction-logs", description = "The ingest job's topic: what "
      + "GET /searchable waits for when the caller names no topic (default: ${DEFAULT-VALUE}).")
  String ingestTopic;

  @Option(names = "--cdc-topic", paramLabel = "TOPIC", description = "The CDC runner's change topic, as the ingest "
      + "job's --cdc-topic: what GET /searchable?binlog= (or gtid=) waits for when the caller names no topic.")
  String cdcTopic;

  @Option(names = "--written-offsets-group", defaultValue = "evenkeel-ingest.written", description = "The consumer "
      + "group where the ingest job publishes the offsets it has written to the shards, as its "
      + "--written-offsets-group; GET /searchable reads it (default: ${DEFAULT-VALUE}).")
  String writtenOffsetsGroup;

  @Option(names = "--flink-ui", paramLabel = "URL", description = "The ingest job's Flink web UI, linked from the "
      + "console.")
  String flinkUi;

  /** The rule list queries route by (empty under a fixed policy); set by {@link #routing}. */
  private Supplier<RuleList> ruleList;

  @Option(names = "--optimizer", defaultValue = "on",
      description = "on: composite index, doc-values scan, single indexes; off: single-column indexes only.")
  String optimizer;

  private SslContextFactory.Server https() throws IOException {
    if (httpsKeyStore == null && httpsPassword == null) {
      return null;
    }
    if (httpsKeyStore == null || httpsPassword == null) {
      throw new IllegalArgumentException("--https-keystore and --https-password-file go together");
    }
    SslContextFactory.Server https = new SslContextFactory.Server();
    https.setKeyStorePath(httpsKeyStore.toAbsolutePath().toString());
    https.setKeyStoreType("PKCS12");
    https.setKeyStorePassword(Files.readString(httpsPassword).strip());
    return https;
  }

  public static void main(String[] args) {
    AvroTrust.install();
    CommandLine commandLine = new CommandLine(new QueryServiceMain());
    commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof IllegalArgumentException) {
        line.getErr().println("query-service: " + e.getMessage());
        return CommandLine.ExitCode.USAGE;
      }
      throw e;
    });
    System.exit(commandLine.execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (newKey != null) {
      String role = newKeyRole.startsWith("tenant:") ? "tenant " + newKeyRole.substring("tenant:".length())
          : newKeyRole;
      String[] key = ApiKeys.newKey(newKey, role);
      System.out.println("key (give it to the client; it is not stored): " + key[0]);
      System.out.println("key-file line: " + key[1]);
      return 0;
    }
    PlacementSettings shards = placementOptions.settings().requireGiven();
    ZooKeeperSettings zookeeper = zookeeperOptions.settings();
    ApiKeys keys = apiKeys == null ? null : ApiKeys.open(apiKeys);
    Supplier<RoutingPolicy> routing = routing(shards.numShards(), zookeeper);
    OptimizerSettings settings = OptimizerSettings.defaults()
        .withScanColumns(names(scanColumns))
        .withHotAttributes(names(hotAttributes))
        .withRules(switch (optimizer) {
          case "on" -> OptimizerRules.DEFAULT;
          case "off" -> OptimizerRules.PLAIN;
          default -> throw new IllegalArgumentException("--optimizer is on or off; got: " + optimizer);
        });
    for (String column : settings.scanColumns()) {
      io.evenkeel.schemas.table.Column table = io.evenkeel.schemas.table.TransactionLogsTable.column(column)
          .orElseThrow(() -> new IllegalArgumentException("--scan-columns: unknown column '" + column + "'"));
      if (!table.hasDocValues()) {
        throw new IllegalArgumentException("--scan-columns: " + column + " (" + table.type() + ") has no doc values");
      }
    }
    ShardPlacement shardPlacement = placement(shards, zookeeper);
    ClientTls tls = tlsOptions.settings().clientTls();
    QueryService service = QueryService.builder()
        .placement(shardPlacement)
        .routingPolicy(routing)
        .optimizer(settings)
        .deadline(Duration.ofMillis(deadlineMs))
        .memory(MemoryBudget.of(queryMemory == null ? null : ByteSize.parse(queryMemory),
            requestQueryMemory == null ? null : ByteSize.parse(requestQueryMemory), QueryService.MEMORY_FLAG,
            QueryService.REQUEST_MEMORY_FLAG))
        .maxResultRows(maxResultRows)
        .maxConcurrentPerTenant(maxConcurrentPerTenant)
        .tls(tls)
        .staleRules(staleRules)
        .build();
    AutoCloseable hotList = !zookeeper.given() ? () -> {} : followHotAttributes(service, zookeeper);
    Console console = new Console(ClusterOverview.of(shardPlacement, tls),
        bootstrapServers == null ? null : HotTenantFeed.start(summaryTopic, kafkaProperties()), routing, ruleList,
        flinkUi);
    SqlHttpServer server = new SqlHttpServer(service, console, keys, https(), host, port, maxConcurrentQueries);
    server.allowHosts(allowedHosts);
    SearchableWaits searchable = bootstrapServers == null ? null : new SearchableWaits(
        WrittenOffsets.of(kafkaProperties(), writtenOffsetsGroup), kafkaProperties(), ingestTopic, cdcTopic,
        service::refresh);
    server.searchable(searchable);
    if (keys == null && !InetAddress.getByName(host).isLoopbackAddress()) {
      System.err.println("WARNING: the query service listens on " + host + " without authentication: anyone who"
          + " reaches it reads every tenant's rows");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
        if (searchable != null) {
          searchable.close();
        }
        console.close();
        hotList.close();
        service.close();
      } catch (Exception e) {
        System.err.println("query service did not stop cleanly: " + e);
      } finally {
        stopped.countDown();
      }
    }, "query-service-shutdown"));
    int bound = server.start();
    System.out.println("PORT: " + bound);
    System.out.flush();
    if (warmUp) {
      warmUp(service);
    }
    stopped.await();
    return 0;
  }

  /** Runs {@link QueryWarmUp} on a thread of its own, at the lowest priority: real queries come first. */
  private static void warmUp(QueryService service) {
    Thread thread = new Thread(() -> {
      try {
        System.out.println("query warm-up took " + QueryWarmUp.run(service).millis() + " ms");
      } catch (RuntimeException e) {
        System.err.println("WARNING: the query warm-up failed, so the first queries may be slow: " + e.getMessage());
      }
    }, "query-warm-up");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }

  /** Follows the cluster's hot attribute list, and helps publish it unless {@code --hot-attributes-top 0}. */
  private AutoCloseable followHotAttributes(QueryService service, ZooKeeperSettings zookeeper) throws Exception {
    CuratorFramework client = zookeeper.startClient(new ExponentialBackoffRetry(200, 10));
    ClusterHotAttributes hot = ClusterHotAttributes.start(service.attributeFrequency(), service::hotAttributes,
        client, zookeeper.root(),
        new HotAttributePublisher.Settings(hotAttributesTop, hotAttributesMinQueries,
            Duration.ofMillis(hotAttributesIntervalMs), hotAttributesWindow));
    return () -> {
      hot.close();
      client.close();
    };
  }

  /** Where shards are: fixed by --placement, or the cluster state followed live ("zookeeper"). */
  private ShardPlacement placement(PlacementSettings shards, ZooKeeperSettings zookeeper) throws Exception {
    if (!shards.fromClusterState()) {
      if (!readFrom.equals("primaries")) {
        throw new IllegalArgumentException("--read-from replicas needs --placement zookeeper");
      }
      return ShardPlacement.fixed(shards.numShards(), shards.placement());
    }
    if (!zookeeper.given()) {
      throw new IllegalArgumentException("--placement zookeeper needs --zookeeper");
    }
    boolean replicas = switch (readFrom) {
      case "primaries" -> false;
      case "replicas" -> true;
      default -> throw new IllegalArgumentException("--read-from is primaries or replicas; got: " + readFrom);
    };
    return shards.open(zookeeper, new ExponentialBackoffRetry(200, 10), replicas);
  }

  /**
   * The routing policy queries use: fixed, a static rule list, or, with --zookeeper, the committed rule list as the
   * rule-list client sees it now (rules committed while the service runs apply to the next query).
   */
  private Supplier<RoutingPolicy> routing(int numShards, ZooKeeperSettings zookeeper) throws Exception {
    PolicySpec spec = policyOptions.spec();
    if (!zookeeper.given() && spec.kind() == PolicySpec.Kind.LOGSTORE) {
      // A static --rules list holds no tables: the rows the committed tables sent elsewhere would go unread.
      throw new IllegalArgumentException("--policy logstore needs --zookeeper: its tables are the committed rules");
    }
    if (!zookeeper.given() || !spec.byRuleList()) {
      RuleList list = spec.byRuleList() ? ruleList(numShards, rules) : RuleList.empty(numShards);
      RoutingPolicy fixed = spec.policy(list);
      ruleList = () -> list;
      return () -> fixed;
    }
    if (!rules.isBlank()) {
      throw new IllegalArgumentException("--rules and --zookeeper exclude each other: the rules come from ZooKeeper");
    }
    CuratorFramework client = zookeeper.startClient(new ExponentialBackoffRetry(200, 10));
    RuleProtocolConfig config = RuleProtocolConfig.builder(zookeeper.root(), numShards).build();
    RuleListClient rules = new RuleListClient(client, config);
    rules.start();
    ruleList = rules::current;
    long staleAfterMs = config.effectiveDelayMs() / 2;
    staleRules = () -> {
      long cutOff = rules.disconnectedMillis();
      return cutOff > staleAfterMs ? "the rule list has been cut off from ZooKeeper for " + cutOff + " ms (over T/2 = "
          + staleAfterMs + " ms): rules committed meanwhile are unknown here, so rows of tenants widened since may be "
          + "missing" : null;
    };
    return () -> spec.policy(rules.current());
  }

  private Properties kafkaProperties() throws IOException {
    Properties properties = new Properties();
    if (kafkaConfig != null) {
      try (InputStream in = Files.newInputStream(kafkaConfig)) {
        properties.load(in);
      }
    }
    properties.put("bootstrap.servers", bootstrapServers);
    return properties;
  }

  /** A static rule list "t:L:tenants;...". */
  private static RuleList ruleList(int numShards, String rules) {
    List<Rule> list = new ArrayList<>();
    for (String entry : rules.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] parts = entry.strip().split(":");
      try {
        if (parts.length != 3) {
          throw new NumberFormatException();
        }
        long[] tenants = Arrays.stream(parts[2].split(",")).mapToLong(t -> Long.parseLong(t.strip())).toArray();
        list.add(Rule.grow(Long.parseLong(parts[0].strip()), Integer.parseInt(parts[1].strip()), tenants));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--rules entries are time:L:tenant,tenant; got: '" + entry + "'");
      }
    }
    return RuleList.of(numShards, list);
  }

  private static Set<String> names(List<String> values) {
    Set<String> names = new LinkedHashSet<>();
    for (String value : values) {
      if (!value.isBlank()) {
        names.add(value.strip());
      }
    }
    return names;
  }
}
