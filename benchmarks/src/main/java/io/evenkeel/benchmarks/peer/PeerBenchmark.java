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
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Evenkeel beside a real OpenSearch node on this machine, in one run, on the same rows and queries: each loads the
 * rows to searchable twice (cold: first load of a fresh system; warm: the same number of new rows again), then both
 * answer the same tenant-scoped queries, whose row counts must agree. Prints a Markdown table and writes it with a
 * PNG chart to {@code --out}.
 */
@Command(name = "peer-benchmark", mixinStandardHelpOptions = true,
    description = "Evenkeel (bin/evenkeel local, load --wait, SQL) against one OpenSearch node (_bulk, _search).")
public final class PeerBenchmark implements Callable<Integer> {
  private static final long SEED = 20_221_111;
  private static final long WARM_ROW_OFFSET = 10_000_000_000L;
  private static final int BULK_ROWS = 1_000;

  @Option(names = "--rows", defaultValue = "300000", description = "Rows per load (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--tenants", defaultValue = "500", description = "Zipf(1) tenants (default: ${DEFAULT-VALUE}).")
  int tenants;

  @Option(names = "--queries", defaultValue = "1000",
      description = "Timed queries per tenant group and system (default: ${DEFAULT-VALUE}).")
  int queries;

  @Option(names = "--warmup-queries", defaultValue = "200", description = "Untimed first (default: ${DEFAULT-VALUE}).")
  int warmupQueries;

  @Option(names = "--opensearch-shards", defaultValue = "8", description = "(default: ${DEFAULT-VALUE})")
  int openSearchShards;

  @Option(names = "--opensearch-heap", defaultValue = "2g", description = "(default: ${DEFAULT-VALUE})")
  String openSearchHeap;

  @Option(names = "--shard-servers", defaultValue = "1",
      description = "Evenkeel's, as bin/evenkeel local starts them (default: ${DEFAULT-VALUE}).")
  int shardServers;

  @Option(names = "--shards", defaultValue = "8", description = "Evenkeel's (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results",
      description = "Where the Markdown and the PNG go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--smoke", description = "A few thousand rows and a few queries: checks the command works.")
  boolean smoke;

  /**
   * A system's load: docs per second to searchable; CPU seconds its processes spent, and all processes of the machine
   * (the 2 cores give 2 CPU seconds per second).
   */
  public record Load(int rows, double seconds, Map<String, Double> cpuSeconds, double machineCpuSeconds) {
    public double docsPerSecond() {
      return rows / seconds;
    }
  }

  /** Latencies of one tenant group on one system, in ms, in query order. */
  public record Latencies(double[] ms) {
    public double percentile(double p) {
      double[] sorted = ms.clone();
      Arrays.sort(sorted);
      return BenchmarkFigures.percentile(sorted, p);
    }
  }

  /** What a run measured. */
  public record Result(Map<String, Load> evenkeel, Map<String, Load> openSearch, Map<String, Latencies> evenkeelQueries,
      Map<String, Latencies> openSearchQueries, int queriesCompared, int countMismatches, List<String> mismatches,
      String openSearchVersion, Path markdown, Path png) {}

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
    return result.countMismatches() == 0 ? 0 : 1;
  }

  /** Runs the whole comparison; the work directory is removed after. */
  public Result run() throws Exception {
    AvroTrust.install();
    if (smoke) {
      rows = Math.min(rows, 3_000);
      tenants = Math.min(tenants, 100);
      queries = Math.min(queries, 20);
      warmupQueries = Math.min(warmupQueries, 5);
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

  private Result run(Path work) throws Exception {
    PeerRows cold = PeerRows.generate(SEED, rows, tenants);
    PeerRows warm = cold.shifted(WARM_ROW_OFFSET);
    Path coldFile = work.resolve("cold.jsonl");
    Path warmFile = work.resolve("warm.jsonl");
    cold.writeJsonLines(coldFile);
    warm.writeJsonLines(warmFile);
    List<List<Long>> groups = PeerQueries.tenants(cold.rows(), 5, 20);
    Map<String, List<PeerQuery>> queriesByGroup = new LinkedHashMap<>();
    queriesByGroup.put("hot tenants (5 largest)",
        PeerQueries.generate(cold.rows(), groups.get(0), warmupQueries + queries, SEED));
    queriesByGroup.put("small tenants (20 smallest)",
        PeerQueries.generate(cold.rows(), groups.get(1), warmupQueries + queries, SEED + 1));
    System.out.printf(Locale.ROOT, "%,d rows per load over %d Zipf(1) tenants (the largest holds %.1f%%); work dir"
        + " %s%n",
        rows, tenants, 100.0 * largestShare(cold.rows()), work);

    Map<String, Load> openSearchLoads = new LinkedHashMap<>();
    Map<String, Load> evenkeelLoads = new LinkedHashMap<>();
    try (OpenSearchPeer openSearch = started(OpenSearchPeer.start(repo, work.resolve("opensearch"), openSearchHeap))) {
      System.out.println("OpenSearch node up: " + openSearch.version());
      openSearch.createIndex(openSearchShards);
      openSearchLoads.put("cold", bulkLoad(openSearch, cold, rows));
      openSearchLoads.put("warm", bulkLoad(openSearch, warm, 2L * rows));
      try (EvenkeelPeer evenkeel = started(EvenkeelPeer.start(repo, work.resolve("evenkeel"), shardServers, shards))) {
        System.out.println("Evenkeel local stack up");
        evenkeelLoads.put("cold", evenkeelLoad(evenkeel, coldFile, rows));
        evenkeelLoads.put("warm", evenkeelLoad(evenkeel, warmFile, rows));
        Map<String, Latencies> evenkeelQueries = new LinkedHashMap<>();
        Map<String, Latencies> openSearchQueries = new LinkedHashMap<>();
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (Map.Entry<String, List<PeerQuery>> group : queriesByGroup.entrySet()) {
          List<PeerQuery> list = group.getValue();
          double[] evenkeelMs = new double[queries];
          double[] openSearchMs = new double[queries];
          for (int i = 0; i < list.size(); i++) {
            PeerQuery query = list.get(i);
            // Alternating per query, so that drift on a shared machine hits both systems alike.
            long started = System.nanoTime();
            int evenkeelRows = evenkeel.query(query.sql(), query.params());
            long between = System.nanoTime();
            int openSearchRows = openSearch.search(query.tenant(), query.openSearch());
            long done = System.nanoTime();
            if (i >= warmupQueries) {
              evenkeelMs[i - warmupQueries] = (between - started) / 1e6;
              openSearchMs[i - warmupQueries] = (done - between) / 1e6;
            }
            compared++;
            if (evenkeelRows != openSearchRows) {
              mismatches.add(query.sql() + " " + query.params() + ": Evenkeel " + evenkeelRows + " rows, OpenSearch "
                  + openSearchRows);
            }
          }
          evenkeelQueries.put(group.getKey(), new Latencies(evenkeelMs));
          openSearchQueries.put(group.getKey(), new Latencies(openSearchMs));
        }
        return report(new Result(evenkeelLoads, openSearchLoads, evenkeelQueries, openSearchQueries, compared,
            mismatches.size(), mismatches, openSearch.version(), null, null));
      }
    }
  }

  private <T extends AutoCloseable> T started(T peer) {
    running.add(peer);
    return peer;
  }

  /** {@code _bulk} of 1,000 rows per request, one client thread, from the first request to a completed refresh. */
  private static Load bulkLoad(OpenSearchPeer openSearch, PeerRows rows, long expectedDocs) throws Exception {
    List<String> bodies = rows.bulkBodies(OpenSearchPeer.INDEX, BULK_ROWS);
    double machineCpu = machineCpuSeconds();
    long started = System.nanoTime();
    for (String body : bodies) {
      openSearch.bulk(body);
    }
    openSearch.refresh();
    double seconds = (System.nanoTime() - started) / 1e9;
    long docs = openSearch.count();
    if (docs != expectedDocs) {
      throw new IllegalStateException("OpenSearch holds " + docs + " documents after the load, not " + expectedDocs);
    }
    System.out.printf(Locale.ROOT, "OpenSearch: %,d rows searchable in %.1f s%n", rows.rows().size(), seconds);
    return new Load(rows.rows().size(), seconds, Map.of(), machineCpuSeconds() - machineCpu);
  }

  private static Load evenkeelLoad(EvenkeelPeer evenkeel, Path file, int rows) throws Exception {
    List<ProcessHandle> processes = evenkeel.processes();
    Map<String, Duration> cpuBefore = ProcessCpu.of(processes);
    double machineCpu = machineCpuSeconds();
    long started = System.nanoTime();
    evenkeel.loadAndWait(file);
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, Double> cpuSeconds = ProcessCpu.between(cpuBefore, ProcessCpu.of(processes));
    System.out.printf(Locale.ROOT, "Evenkeel: %,d rows loaded and searchable in %.1f s (bin/evenkeel load --wait)%n",
        rows, seconds);
    return new Load(rows, seconds, cpuSeconds, machineCpuSeconds() - machineCpu);
  }

  private static double machineCpuSeconds() throws IOException {
    return ProcessCpu.machineSeconds();
  }

  private Result report(Result result) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "## Evenkeel vs OpenSearch, %s%n%n", LocalDateTime.now().withNano(0)));
    md.append(String.format(Locale.ROOT, "%,d rows per load, %d Zipf(1) tenants; %s, %d shards, heap %s, `_bulk` of "
        + "%,d rows, one client thread, refresh 1 s, translog fsynced per request; Evenkeel: `bin/evenkeel local`, %d "
        + "shard servers, %d shards, durability `request`. Queries: %,d timed (after %d untimed) per group, one "
        + "thread, alternating between the systems; %d compared, %d row-count mismatches.%n%n", rows, tenants,
        result.openSearchVersion(), openSearchShards, openSearchHeap, BULK_ROWS, shardServers, shards, queries,
        warmupQueries, result.queriesCompared(), result.countMismatches()));
    md.append("| what | Evenkeel | OpenSearch | Evenkeel's speed ratio |\n|---|---:|---:|---:|\n");
    Map<String, Double> ratios = new LinkedHashMap<>();
    for (String phase : List.of("cold", "warm")) {
      Load e = result.evenkeel().get(phase);
      Load o = result.openSearch().get(phase);
      double ratio = e.docsPerSecond() / o.docsPerSecond();
      ratios.put("load, " + phase, ratio);
      md.append(String.format(Locale.ROOT, "| load to searchable, %s, docs/s | %,.0f (%.1f s) | %,.0f (%.1f s) | "
          + "%.2f× |%n", phase, e.docsPerSecond(), e.seconds(), o.docsPerSecond(), o.seconds(), ratio));
    }
    for (String group : result.evenkeelQueries().keySet()) {
      Latencies e = result.evenkeelQueries().get(group);
      Latencies o = result.openSearchQueries().get(group);
      for (double p : new double[] {0.5, 0.99}) {
        String label = group.substring(0, group.indexOf(" (")) + " p" + (int) (p * 100);
        double ratio = o.percentile(p) / e.percentile(p);
        ratios.put(label, ratio);
        md.append(String.format(Locale.ROOT, "| %s, %s ms | %.2f | %.2f | %.2f× |%n", group, "p" + (int) (p * 100),
            e.percentile(p), o.percentile(p), ratio));
      }
    }
    md.append("\nSpeed ratio: Evenkeel's docs/s over OpenSearch's; for latencies OpenSearch's over Evenkeel's. Above "
        + "1, Evenkeel is faster.\n\n");
    for (String phase : List.of("cold", "warm")) {
      md.append(String.format(Locale.ROOT, "CPU during the %s loads: the machine's processes spent %.1f s of %.1f s "
          + "(2 cores × wall time) for Evenkeel, %.1f s of %.1f s for OpenSearch.%n", phase,
          result.evenkeel().get(phase).machineCpuSeconds(), 2 * result.evenkeel().get(phase).seconds(),
          result.openSearch().get(phase).machineCpuSeconds(), 2 * result.openSearch().get(phase).seconds()));
    }
    md.append("\nCPU seconds of Evenkeel's processes during the cold load (the loader, `bin/evenkeel load`, is the "
        + "rest of the machine's):\n\n");
    result.evenkeel().get("cold").cpuSeconds().forEach((process, seconds) ->
        md.append(String.format(Locale.ROOT, "- %s: %.1f s%n", process, seconds)));
    if (!result.mismatches().isEmpty()) {
      md.append("\nRow-count mismatches (first 10):\n\n");
      result.mismatches().stream().limit(10).forEach(m -> md.append("- ").append(m).append('\n'));
    }
    Files.createDirectories(out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path markdown = out.resolve("peer-" + stamp + ".md");
    Path png = out.resolve("peer-" + stamp + ".png");
    Files.writeString(markdown, md.toString() + "\n![Evenkeel / OpenSearch](" + png.getFileName() + ")\n");
    PeerChart.write(png, String.format(Locale.ROOT, "Evenkeel vs OpenSearch, %,d rows, this machine", rows), ratios);
    return new Result(result.evenkeel(), result.openSearch(), result.evenkeelQueries(), result.openSearchQueries(),
        result.queriesCompared(), result.countMismatches(), result.mismatches(), result.openSearchVersion(), markdown,
        png);
  }

  private static double largestShare(List<TransactionLogChange> rows) {
    Map<Long, Integer> counts = new LinkedHashMap<>();
    rows.forEach(row -> counts.merge(row.getTenantId(), 1, Integer::sum));
    return counts.values().stream().mapToInt(Integer::intValue).max().orElse(0) / (double) rows.size();
  }
}
