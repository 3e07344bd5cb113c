package io.evenkeel.benchmarks.peer;

import io.evenkeel.benchmarks.peer.PeerQueries.PeerQuery;
import io.evenkeel.benchmarks.query.BenchmarkFigures;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Evenkeel beside a real OpenSearch node on this machine, on the same rows and queries, each system measured alone:
 * a repetition starts one system fresh, loads the rows to searchable twice (cold: its first load; warm: as many new
 * rows again), asks the tenant-scoped queries, and stops it; then the other. The order alternates between
 * repetitions, so that a drift of the machine falls on both. Medians and spreads over the repetitions go into a
 * Markdown table with a PNG chart in {@code --out}; the row counts of every query must agree between the systems.
 */
@Command(name = "peer-benchmark", mixinStandardHelpOptions = true,
    description = "Evenkeel (bin/evenkeel local, load --wait, SQL) against one OpenSearch node (_bulk, _search), each"
        + " alone, in alternating repetitions.")
public final class PeerBenchmark implements Callable<Integer> {
  static final String EVENKEEL = "Evenkeel";
  static final String OPENSEARCH = "OpenSearch";
  private static final long SEED = 20_221_111;
  private static final long WARM_ROW_OFFSET = 10_000_000_000L;
  static final String HOT = "hot tenants (5 largest)";
  static final String SMALL = "small tenants (20 smallest)";
  static final String ANALYTICS = "analytics (all tenants: top tenants, counts by status and day, sums by tenant)";
  /** Untimed analytics first: they take longer than tenant queries, so fewer run. */
  private static final int ANALYTICS_WARMUP = 5;

  @Option(names = "--rows", defaultValue = "300000", description = "Rows per load (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--tenants", defaultValue = "500", description = "Zipf(1) tenants (default: ${DEFAULT-VALUE}).")
  int tenants;

  @Option(names = "--queries", defaultValue = "1000",
      description = "Timed queries per tenant group and system (default: ${DEFAULT-VALUE}).")
  int queries;

  @Option(names = "--warmup-queries", defaultValue = "200", description = "Untimed first (default: ${DEFAULT-VALUE}).")
  int warmupQueries;

  @Option(names = "--analytics-queries", defaultValue = "60",
      description = "Timed cross-tenant analytics per system, after 5 untimed (default: ${DEFAULT-VALUE}).")
  int analyticsQueries;

  @Option(names = "--repetitions", defaultValue = "3",
      description = "Runs of each system, alternating which goes first (default: ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(names = "--bulk-threads", defaultValue = "4",
      description = "OpenSearch's _bulk client threads: twice the node's write pool on 2 cores, so that a request "
          + "is always waiting (default: ${DEFAULT-VALUE}).")
  int bulkThreads;

  @Option(names = "--bulk-rows", defaultValue = "5000",
      description = "Rows per _bulk request, about 2 MB (default: ${DEFAULT-VALUE}).")
  int bulkRows;

  @Option(names = "--opensearch-shards", defaultValue = "8", description = "(default: ${DEFAULT-VALUE})")
  int openSearchShards;

  @Option(names = "--opensearch-heap", defaultValue = "2g", description = "(default: ${DEFAULT-VALUE})")
  String openSearchHeap;

  @Option(names = "--nodes", defaultValue = "1", description = "Nodes on each side: Evenkeel's shard servers and "
      + "OpenSearch's nodes; beyond one, each shard has one replica on both (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--shards", defaultValue = "8", description = "Evenkeel's (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results",
      description = "Where the Markdown and the PNG go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--smoke",
      description = "A few thousand rows, a few queries, one repetition, OpenSearch on a 512 MB heap: checks the "
          + "command works.")
  boolean smoke;

  /**
   * A system's load: docs per second to searchable; CPU seconds its processes spent (Evenkeel's, by process), and all
   * processes of the machine (2 cores give 2 CPU seconds per second).
   */
  public record Load(int rows, double seconds, Map<String, Double> cpuSeconds, double machineCpuSeconds) {
    public double docsPerSecond() {
      return rows / seconds;
    }
  }

  /** Latencies of one tenant group, in ms, in query order. */
  public record Latencies(double[] ms) {
    public double percentile(double p) {
      double[] sorted = ms.clone();
      Arrays.sort(sorted);
      return BenchmarkFigures.percentile(sorted, p);
    }
  }

  /**
   * One system's repetition: what ran (OpenSearch's version string); its two loads; per tenant group the timed
   * queries' latencies as the client saw them and as the server reported them (OpenSearch's {@code took}, Evenkeel's
   * {@code took_ms}); every query's row count.
   */
  public record SystemRun(String system, String version, int repetition, Load cold, Load warm,
      Map<String, Latencies> clientMs, Map<String, Latencies> serverMs, List<Integer> rowCounts,
      Map<String, Double> firstMs) {}

  /** What a run measured: each system's repetitions in the order they ran. */
  public record Result(List<SystemRun> inOrder, int queriesCompared, List<String> mismatches, long bulkBytes,
      Path markdown, Path png) {
    /** A system's repetitions, in order. */
    public List<SystemRun> of(String system) {
      return inOrder.stream().filter(run -> run.system().equals(system)).toList();
    }

    String openSearchVersion() {
      return of(OPENSEARCH).get(0).version();
    }
  }

  /** What runs now, closed in reverse order at the end or when the JVM is asked to stop (Ctrl-C). */
  private final Deque<AutoCloseable> running = new ConcurrentLinkedDeque<>();

  public static void main(String[] args) {
    PeerBenchmark benchmark = new PeerBenchmark();
    Runtime.getRuntime().addShutdownHook(new Thread(benchmark::closeRunning, "peer-benchmark-stop"));
    System.exit(new CommandLine(benchmark).execute(args));
  }

  private void closeRunning() {
    for (AutoCloseable peer = running.pollLast(); peer != null; peer = running.pollLast()) {
      try {
        peer.close();
      } catch (Exception e) {
        System.err.println("could not stop " + peer + ": " + e);
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    Result result = run();
    System.out.println(Files.readString(result.markdown()));
    System.out.println("written: " + result.markdown() + ", " + result.png());
    return result.mismatches().isEmpty() ? 0 : 1;
  }

  /** Runs the whole comparison; the work directory is removed after. */
  public Result run() throws Exception {
    AvroTrust.install();
    if (smoke) {
      rows = Math.min(rows, 3_000);
      tenants = Math.min(tenants, 100);
      queries = Math.min(queries, 20);
      analyticsQueries = Math.min(analyticsQueries, 6);
      warmupQueries = Math.min(warmupQueries, 5);
      repetitions = 1;
      bulkRows = Math.min(bulkRows, 1_000);
      openSearchHeap = "512m";
    }
    if (repetitions < 1 || bulkThreads < 1 || bulkRows < 1 || nodes < 1) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--repetitions, --bulk-threads, --bulk-rows and --nodes must be at least 1");
    }
    repo = repo.toAbsolutePath().normalize();
    Path work = Files.createTempDirectory("evenkeel-peer-");
    try {
      return run(work);
    } finally {
      closeRunning();
      IOUtils.rm(work);
    }
  }

  /** The rows and queries both systems get. */
  private record Workload(PeerRows cold, PeerRows warm, Path coldFile, Path warmFile, List<String> coldBulk,
      List<String> warmBulk, Map<String, List<PeerQuery>> queries) {}

  private Result run(Path work) throws Exception {
    PeerRows cold = PeerRows.generate(SEED, rows, tenants);
    PeerRows warm = cold.shifted(WARM_ROW_OFFSET);
    Path coldFile = work.resolve("cold.jsonl");
    Path warmFile = work.resolve("warm.jsonl");
    cold.writeJsonLines(coldFile);
    warm.writeJsonLines(warmFile);
    List<List<Long>> groups = PeerQueries.tenants(cold.rows(), 5, 20);
    Map<String, List<PeerQuery>> queriesByGroup = new LinkedHashMap<>();
    queriesByGroup.put(HOT, PeerQueries.generate(cold.rows(), groups.get(0), warmupQueries + queries, SEED));
    queriesByGroup.put(SMALL, PeerQueries.generate(cold.rows(), groups.get(1), warmupQueries + queries, SEED + 1));
    queriesByGroup.put(ANALYTICS, PeerQueries.analytics(cold.rows(), ANALYTICS_WARMUP + analyticsQueries, SEED + 2));
    queriesByGroup.forEach((group, list) -> timedQueries.put(group,
        list.subList(group.equals(ANALYTICS) ? ANALYTICS_WARMUP : warmupQueries, list.size())));
    // Built before any clock starts, as the loader reads its file before it sends.
    Workload workload = new Workload(cold, warm, coldFile, warmFile, cold.bulkBodies(OpenSearchPeer.INDEX, bulkRows),
        warm.bulkBodies(OpenSearchPeer.INDEX, bulkRows), queriesByGroup);
    long bulkBytes = workload.coldBulk().get(0).length();
    System.out.printf(Locale.ROOT, "%,d rows per load over %d Zipf(1) tenants (the largest holds %.1f%%); %d "
        + "repetitions; work dir %s%n", rows, tenants, 100.0 * largestShare(cold.rows()), repetitions, work);

    List<SystemRun> inOrder = new ArrayList<>();
    Map<String, SystemRun> latest = new LinkedHashMap<>();
    List<String> mismatches = new ArrayList<>();
    int compared = 0;
    for (int repetition = 1; repetition <= repetitions; repetition++) {
      List<String> order = repetition % 2 == 1 ? List.of(OPENSEARCH, EVENKEEL) : List.of(EVENKEEL, OPENSEARCH);
      for (String system : order) {
        Path home = work.resolve(system.toLowerCase(Locale.ROOT) + "-" + repetition);
        System.out.printf("repetition %d of %d: %s alone%n", repetition, repetitions, system);
        SystemRun run = system.equals(EVENKEEL) ? runEvenkeel(home, repetition, workload)
            : runOpenSearch(home, repetition, workload);
        inOrder.add(run);
        latest.put(system, run);
      }
      List<Integer> evenkeelCounts = latest.get(EVENKEEL).rowCounts();
      List<Integer> openSearchCounts = latest.get(OPENSEARCH).rowCounts();
      List<PeerQuery> all = workload.queries().values().stream().flatMap(List::stream).toList();
      for (int i = 0; i < all.size(); i++) {
        compared++;
        if (!evenkeelCounts.get(i).equals(openSearchCounts.get(i))) {
          mismatches.add(all.get(i).sql() + " " + all.get(i).params() + ": Evenkeel " + evenkeelCounts.get(i)
              + " rows, OpenSearch " + openSearchCounts.get(i) + " (repetition " + repetition + ")");
        }
      }
    }
    return report(new Result(inOrder, compared, mismatches, bulkBytes, null, null));
  }

  private SystemRun runOpenSearch(Path home, int repetition, Workload workload) throws Exception {
    OpenSearchPeer openSearch = started(OpenSearchPeer.start(repo, home, openSearchHeap, nodes));
    try {
      System.out.println("OpenSearch up, " + nodes + " node(s): " + openSearch.version());
      openSearch.createIndex(openSearchShards, replicas());
      Load cold = bulkLoad(openSearch, workload.coldBulk(), workload.cold().rows().size(), rows);
      Load warm = bulkLoad(openSearch, workload.warmBulk(), workload.warm().rows().size(), 2L * rows);
      Queried queried = query(workload.queries(), q -> {
        OpenSearchPeer.Answer answer = openSearch.search(q.tenant(), q.openSearch());
        return new Timed(answer.rows(), answer.tookMs());
      });
      return new SystemRun(OPENSEARCH, openSearch.version(), repetition, cold, warm, queried.clientMs(),
          queried.serverMs(), queried.rowCounts(), queried.firstMs());
    } finally {
      stop(openSearch);
    }
  }

  private SystemRun runEvenkeel(Path home, int repetition, Workload workload) throws Exception {
    EvenkeelPeer evenkeel = started(EvenkeelPeer.start(repo, home, nodes, shards, replicas()));
    try {
      System.out.println("Evenkeel local stack up");
      Load cold = evenkeelLoad(evenkeel, workload.coldFile(), rows);
      Load warm = evenkeelLoad(evenkeel, workload.warmFile(), rows);
      Queried queried = query(workload.queries(), q -> {
        EvenkeelPeer.Answer answer = evenkeel.query(q.sql(), q.params());
        return new Timed(answer.rows(), answer.tookMs());
      });
      return new SystemRun(EVENKEEL, "bin/evenkeel local", repetition, cold, warm, queried.clientMs(),
          queried.serverMs(), queried.rowCounts(), queried.firstMs());
    } finally {
      stop(evenkeel);
    }
  }

  /** Each group's timed queries (after its warm-up), in the order asked. */
  private final Map<String, List<PeerQuery>> timedQueries = new LinkedHashMap<>();

  /** Replicas of each shard on both sides: one where there is a second node to hold it. */
  private int replicas() {
    return nodes > 1 ? 1 : 0;
  }

  /** A query's rows and the server's own time for it, in ms. */
  record Timed(int rows, double serverMs) {}

  @FunctionalInterface
  interface Asker {
    Timed ask(PeerQuery query) throws Exception;
  }

  /** Latencies by group; {@code firstMs}, each group's first query (untimed: the first of its kind after the loads). */
  private record Queried(Map<String, Latencies> clientMs, Map<String, Latencies> serverMs, List<Integer> rowCounts,
      Map<String, Double> firstMs) {}

  /** Every group's queries in order on one thread and one keep-alive connection, the first ones untimed. */
  private Queried query(Map<String, List<PeerQuery>> groups, Asker asker) throws Exception {
    Map<String, Latencies> clientMs = new LinkedHashMap<>();
    Map<String, Latencies> serverMs = new LinkedHashMap<>();
    Map<String, Double> firstMs = new LinkedHashMap<>();
    List<Integer> rowCounts = new ArrayList<>();
    for (Map.Entry<String, List<PeerQuery>> group : groups.entrySet()) {
      int warmup = group.getKey().equals(ANALYTICS) ? ANALYTICS_WARMUP : warmupQueries;
      List<PeerQuery> list = group.getValue();
      double[] client = new double[list.size() - warmup];
      double[] server = new double[list.size() - warmup];
      for (int i = 0; i < list.size(); i++) {
        long started = System.nanoTime();
        Timed answer = asker.ask(list.get(i));
        double ms = (System.nanoTime() - started) / 1e6;
        if (i == 0) {
          firstMs.put(group.getKey(), ms);
        }
        if (i >= warmup) {
          client[i - warmup] = ms;
          server[i - warmup] = answer.serverMs();
        }
        rowCounts.add(answer.rows());
      }
      clientMs.put(group.getKey(), new Latencies(client));
      serverMs.put(group.getKey(), new Latencies(server));
    }
    return new Queried(clientMs, serverMs, rowCounts, firstMs);
  }

  private <T extends AutoCloseable> T started(T peer) {
    running.add(peer);
    return peer;
  }

  /** Stops a system before the other starts: each is measured alone. */
  private void stop(AutoCloseable peer) throws Exception {
    running.remove(peer);
    peer.close();
  }

  /**
   * {@code _bulk} requests sent by {@code --bulk-threads} clients at once, from the first request to a completed
   * refresh; the node's documents must then be {@code expectedDocs}.
   */
  private Load bulkLoad(OpenSearchPeer openSearch, List<String> bodies, int loaded, long expectedDocs)
      throws Exception {
    double machineCpu = ProcessCpu.machineSeconds();
    long started = System.nanoTime();
    AtomicInteger next = new AtomicInteger();
    ExecutorService clients = Executors.newFixedThreadPool(bulkThreads);
    try {
      List<Future<Void>> sent = new ArrayList<>();
      for (int t = 0; t < bulkThreads; t++) {
        sent.add(clients.submit(() -> {
          for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
            openSearch.bulk(bodies.get(i));
          }
          return null;
        }));
      }
      for (Future<Void> client : sent) {
        client.get();
      }
    } finally {
      clients.shutdownNow();
    }
    openSearch.refresh();
    double seconds = (System.nanoTime() - started) / 1e9;
    long docs = openSearch.count();
    if (docs != expectedDocs) {
      throw new IllegalStateException("OpenSearch holds " + docs + " documents after the load, not " + expectedDocs);
    }
    System.out.printf(Locale.ROOT, "OpenSearch: %,d rows searchable in %.1f s%n", loaded, seconds);
    return new Load(loaded, seconds, Map.of(), ProcessCpu.machineSeconds() - machineCpu);
  }

  private static Load evenkeelLoad(EvenkeelPeer evenkeel, Path file, int rows) throws Exception {
    List<ProcessHandle> processes = evenkeel.processes();
    Map<String, Duration> cpuBefore = ProcessCpu.of(processes);
    double machineCpu = ProcessCpu.machineSeconds();
    long started = System.nanoTime();
    evenkeel.loadAndWait(file);
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, Double> cpuSeconds = ProcessCpu.between(cpuBefore, ProcessCpu.of(processes));
    System.out.printf(Locale.ROOT, "Evenkeel: %,d rows loaded and searchable in %.1f s (bin/evenkeel load --wait)%n",
        rows, seconds);
    return new Load(rows, seconds, cpuSeconds, ProcessCpu.machineSeconds() - machineCpu);
  }

  /** One figure of a system over its repetitions: the median, the smallest and the largest. */
  record Spread(double median, double min, double max) {
    static Spread of(List<SystemRun> runs, ToDoubleFunction<SystemRun> figure) {
      double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
      return new Spread(BenchmarkFigures.percentile(values, 0.5), values[0], values[values.length - 1]);
    }

    String format(String pattern) {
      String median = String.format(Locale.ROOT, pattern, this.median);
      return min == max ? median : median + String.format(Locale.ROOT, " (" + pattern + "–" + pattern + ")", min, max);
    }
  }

  private Result report(Result result) throws IOException {
    List<SystemRun> evenkeel = result.of(EVENKEEL);
    List<SystemRun> openSearch = result.of(OPENSEARCH);
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "## Evenkeel vs OpenSearch, %s%n%n", LocalDateTime.now().withNano(0)));
    md.append(String.format(Locale.ROOT, "%,d rows per load, %d Zipf(1) tenants; each system alone on the machine, "
        + "%d repetitions alternating which goes first, every figure the median over them (smallest–largest). "
        + "%s: %d node(s), %d shards of %d replicas, heap %s, `_bulk` of %,d rows (%,d bytes) from %d client threads "
        + "(to the nodes in turn), refresh 1 s, translog fsynced per request. Evenkeel: `bin/evenkeel local "
        + "--no-replay --shard-servers %d --shards %d --replicas %d`, `bin/evenkeel load FILE --wait` (its own "
        + "producer threads), durability `request`. Queries: "
        + "%,d timed after %d untimed per tenant group, one client thread and one keep-alive HTTP/1.1 connection on "
        + "each side; %,d answers compared, %d row-count mismatches.%n%n", rows, tenants, repetitions,
        result.openSearchVersion(), nodes, openSearchShards, replicas(), openSearchHeap, bulkRows, result.bulkBytes(),
        bulkThreads, nodes, shards, replicas(), queries, warmupQueries, result.queriesCompared(),
        result.mismatches().size()));
    md.append("| what | Evenkeel | OpenSearch | Evenkeel's speed ratio |\n|---|---:|---:|---:|\n");
    Map<String, Double> ratios = new LinkedHashMap<>();
    for (String phase : List.of("cold", "warm")) {
      ToDoubleFunction<SystemRun> docsPerSecond = run -> load(run, phase).docsPerSecond();
      Spread e = Spread.of(evenkeel, docsPerSecond);
      Spread o = Spread.of(openSearch, docsPerSecond);
      double ratio = e.median() / o.median();
      ratios.put("load, " + phase, ratio);
      md.append(String.format(Locale.ROOT, "| load to searchable, %s, docs/s | %s | %s | %.2f× |%n", phase,
          e.format("%,.0f"), o.format("%,.0f"), ratio));
    }
    for (String group : evenkeel.get(0).clientMs().keySet()) {
      for (double p : new double[] {0.5, 0.99}) {
        String label = group.substring(0, group.indexOf(" (")) + " p" + (int) (p * 100);
        Spread e = Spread.of(evenkeel, run -> run.clientMs().get(group).percentile(p));
        Spread o = Spread.of(openSearch, run -> run.clientMs().get(group).percentile(p));
        double ratio = o.median() / e.median();
        ratios.put(label, ratio);
        md.append(String.format(Locale.ROOT, "| %s, p%d ms | %s | %s | %.2f× |%n", group, (int) (p * 100),
            e.format("%.2f"), o.format("%.2f"), ratio));
      }
    }
    md.append("\nSpeed ratio: Evenkeel's docs/s over OpenSearch's; for latencies OpenSearch's over Evenkeel's. Above "
        + "1, Evenkeel is faster.\n\n");
    md.append(String.format(Locale.ROOT, "The first analytic query after the loads (untimed, medians): Evenkeel %.1f ms "
        + "(%.1f× its warm p50), OpenSearch %.1f ms (%.1f×). Analytics: %d timed after %d untimed, each over a window "
        + "of 1, 3 or 7 days holding a random share of the rows (no two alike, so neither system answers one from a "
        + "cache of an earlier one); the top tenants and the sums by tenant are exact in Evenkeel and, as `terms` "
        + "aggregations over %d shards, approximate in OpenSearch.%n%n",
        Spread.of(evenkeel, run -> run.firstMs().get(ANALYTICS)).median(),
        Spread.of(evenkeel, run -> run.firstMs().get(ANALYTICS) / run.clientMs().get(ANALYTICS).percentile(0.5))
            .median(),
        Spread.of(openSearch, run -> run.firstMs().get(ANALYTICS)).median(),
        Spread.of(openSearch, run -> run.firstMs().get(ANALYTICS) / run.clientMs().get(ANALYTICS).percentile(0.5))
            .median(), analyticsQueries, ANALYTICS_WARMUP, openSearchShards));

    md.append("Query latency at the client and as each server reports it (OpenSearch's `took`, whole ms; Evenkeel's "
        + "`took_ms`), medians over the repetitions; the difference is the client, HTTP and JSON:\n\n");
    md.append("| group | Evenkeel client p50 / p99 | Evenkeel server p50 / p99 | OpenSearch client p50 / p99 | "
        + "OpenSearch server p50 / p99 |\n|---|---:|---:|---:|---:|\n");
    for (String group : evenkeel.get(0).clientMs().keySet()) {
      md.append("| ").append(group);
      for (List<SystemRun> system : List.of(evenkeel, openSearch)) {
        for (boolean server : new boolean[] {false, true}) {
          Spread p50 = Spread.of(system, run -> (server ? run.serverMs() : run.clientMs()).get(group).percentile(0.5));
          Spread p99 = Spread.of(system, run -> (server ? run.serverMs() : run.clientMs()).get(group).percentile(0.99));
          md.append(String.format(Locale.ROOT, " | %.2f / %.2f", p50.median(), p99.median()));
        }
      }
      md.append(" |\n");
    }

    md.append("\nThe tails, in the last repetition of each:\n\n");
    SystemRun lastEvenkeel = evenkeel.get(evenkeel.size() - 1);
    SystemRun lastOpenSearch = openSearch.get(openSearch.size() - 1);
    for (String group : List.of(HOT, SMALL)) {
      md.append("- ").append(QueryTail.describe(group, timedQueries.get(group), lastEvenkeel.clientMs().get(group).ms(),
          lastEvenkeel.serverMs().get(group).ms(), lastOpenSearch.clientMs().get(group).ms())).append('\n');
    }

    md.append("\nCPU seconds of the whole machine during each load (2 cores × wall time available), medians: ");
    for (String phase : List.of("cold", "warm")) {
      md.append(String.format(Locale.ROOT, "%s, Evenkeel %.1f of %.1f, OpenSearch %.1f of %.1f; ", phase,
          Spread.of(evenkeel, run -> load(run, phase).machineCpuSeconds()).median(),
          2 * Spread.of(evenkeel, run -> load(run, phase).seconds()).median(),
          Spread.of(openSearch, run -> load(run, phase).machineCpuSeconds()).median(),
          2 * Spread.of(openSearch, run -> load(run, phase).seconds()).median()));
    }
    md.setLength(md.length() - 2);
    md.append(".\n\nCPU seconds of Evenkeel's processes during its first cold load (the loader, `bin/evenkeel load`, "
        + "is the rest of the machine's):\n\n");
    evenkeel.get(0).cold().cpuSeconds().forEach((process, seconds) ->
        md.append(String.format(Locale.ROOT, "- %s: %.1f s%n", process, seconds)));

    md.append("\nEach repetition, in the order run:\n\n| repetition | system | cold docs/s | warm docs/s | hot p50 / p99 ms "
        + "| small p50 / p99 ms |\n|---:|---|---:|---:|---:|---:|\n");
    for (SystemRun run : result.inOrder()) {
      md.append(String.format(Locale.ROOT, "| %d | %s | %,.0f | %,.0f | %.2f / %.2f | %.2f / %.2f |%n",
          run.repetition(), run.system(), run.cold().docsPerSecond(), run.warm().docsPerSecond(),
          run.clientMs().get(HOT).percentile(0.5), run.clientMs().get(HOT).percentile(0.99),
          run.clientMs().get(SMALL).percentile(0.5), run.clientMs().get(SMALL).percentile(0.99)));
    }
    if (!result.mismatches().isEmpty()) {
      md.append("\nRow-count mismatches (first 10):\n\n");
      result.mismatches().stream().limit(10).forEach(m -> md.append("- ").append(m).append('\n'));
    }
    Files.createDirectories(out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path markdown = out.resolve("peer-" + stamp + ".md");
    Path png = out.resolve("peer-" + stamp + ".png");
    Files.writeString(markdown, md.toString() + "\n![Evenkeel / OpenSearch](" + png.getFileName() + ")\n");
    PeerChart.write(png, String.format(Locale.ROOT, "Evenkeel vs OpenSearch, %,d rows, each alone, medians of %d",
        rows, repetitions), ratios);
    return new Result(result.inOrder(), result.queriesCompared(), result.mismatches(), result.bulkBytes(), markdown,
        png);
  }

  private static Load load(SystemRun run, String phase) {
    return phase.equals("cold") ? run.cold() : run.warm();
  }

  private static double largestShare(List<TransactionLogChange> rows) {
    Map<Long, Integer> counts = new LinkedHashMap<>();
    rows.forEach(row -> counts.merge(row.getTenantId(), 1, Integer::sum));
    return counts.values().stream().mapToInt(Integer::intValue).max().orElse(0) / (double) rows.size();
  }
}
