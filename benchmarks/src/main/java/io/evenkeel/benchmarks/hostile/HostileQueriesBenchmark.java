package io.evenkeel.benchmarks.hostile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerQueries;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.query.BenchmarkFigures;
import io.evenkeel.schemas.codec.AvroTrust;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What hostile queries cost the other tenants, on {@code bin/evenkeel local} (its default layout): a {@code load
 * --wait} of {@code --rows} rows alone and tenant queries alone; each hostile query alone (its status, its time, what
 * it said); then a second load (new rows) with the tenant queries running beside it, the baseline; then a third load
 * with the same tenant queries while {@code --concurrency} clients send the hostile queries in a loop for {@code
 * --minutes}. It reports the loads' rates and the tenant queries' p50/p99 in each phase, the ratios of the attacked
 * phase to the baseline, every hostile answer by status, and whether every process of the stack is the one it started
 * with. Writes Markdown to {@code --out}.
 */
@Command(name = "hostile-queries-benchmark", mixinStandardHelpOptions = true,
    description = "Hostile queries beside a load and tenant queries, on the local stack.")
public final class HostileQueriesBenchmark implements java.util.concurrent.Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = 40;

  /** The hostile set: each a query a user may send that would exhaust or hold a process without its bounds. */
  static final Map<String, String> HOSTILE = new LinkedHashMap<>();

  static {
    HOSTILE.put("every row", "SELECT * FROM transaction_logs");
    HOSTILE.put("a group per row", "SELECT row_id, COUNT(*) FROM transaction_logs GROUP BY row_id");
    HOSTILE.put("distinct rows per tenant",
        "SELECT tenant_id, COUNT(DISTINCT row_id) FROM transaction_logs GROUP BY tenant_id");
    HOSTILE.put("LIMIT 2^63-1 OFFSET 1",
        "SELECT status, COUNT(*) FROM transaction_logs GROUP BY status LIMIT 9223372036854775807 OFFSET 1");
    HOSTILE.put("OFFSET 2^64-1", "SELECT row_id FROM transaction_logs ORDER BY created_time DESC LIMIT 10"
        + " OFFSET 18446744073709551615");
    HOSTILE.put("every tenant's count", "SELECT tenant_id, COUNT(*) AS n FROM transaction_logs GROUP BY tenant_id"
        + " ORDER BY n DESC LIMIT 5");
    HOSTILE.put("a scan of every title", "SELECT COUNT(*) FROM transaction_logs WHERE title LIKE '%zz%'");
  }

  @Option(names = "--rows", defaultValue = "300000", description = "Rows per load (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--tenants", defaultValue = "500", description = "Zipf(1) tenants (default: ${DEFAULT-VALUE}).")
  int tenants;

  @Option(names = "--minutes", defaultValue = "5", description = "How long the hostile clients run, at least as long"
      + " as the load (default: ${DEFAULT-VALUE}).")
  double minutes;

  @Option(names = "--concurrency", defaultValue = "16", description = "Hostile clients (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results", description = "(default: ${DEFAULT-VALUE})")
  Path out;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .executor(Executors.newCachedThreadPool()).build();

  /** The stack while it runs: stopped by a shutdown hook too, so that Ctrl-C leaves no process behind. */
  private volatile EvenkeelPeer running;

  public static void main(String[] args) {
    HostileQueriesBenchmark benchmark = new HostileQueriesBenchmark();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      EvenkeelPeer stack = benchmark.running;
      if (stack != null) {
        try {
          stack.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, "hostile-benchmark-stop"));
    System.exit(new CommandLine(benchmark).execute(args));
  }

  /** One answer: its status, how long it took, and the error it gave. */
  private record Answer(int status, long ms, String error) {}

  /** Tenant queries' latencies and statuses over one phase. */
  private record TenantFigures(double p50, double p99, int count, Map<Integer, Integer> statuses) {}

  @Override
  public Integer call() throws Exception {
    AvroTrust.install();
    repo = repo.toAbsolutePath().normalize();
    Path work = Files.createTempDirectory("evenkeel-hostile-");
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, work.resolve("data"), List.of())) {
      running = stack;
      PeerRows first = PeerRows.generate(SEED, rows, tenants);
      Path firstFile = work.resolve("first.jsonl");
      Path secondFile = work.resolve("second.jsonl");
      Path thirdFile = work.resolve("third.jsonl");
      first.writeJsonLines(firstFile);
      first.shifted(10_000_000L).writeJsonLines(secondFile);
      first.shifted(20_000_000L).writeJsonLines(thirdFile);
      String sql = "http://127.0.0.1:" + (stack.basePort() + 4) + "/sql";
      Map<Long, String> pidsBefore = pids(stack);

      System.out.printf("loading %,d rows of %d Zipf(1) tenants alone%n", rows, tenants);
      double aloneRate = load(stack, firstFile);
      System.out.printf("  %,.0f rows/s; tenant queries alone for 60 s%n", aloneRate);
      List<List<Long>> groups = PeerQueries.tenants(first.rows(), 5, 20);
      List<Long> tenantIds = new ArrayList<>(groups.get(0));
      tenantIds.addAll(groups.get(1));
      TenantFigures aloneTenants = tenantQueries(sql, tenantIds, Duration.ofSeconds(60), new AtomicBoolean(false));
      System.out.printf("alone: load %,.0f rows/s; tenant queries p50 %.1f ms, p99 %.1f ms%n", aloneRate,
          aloneTenants.p50(), aloneTenants.p99());

      Map<String, Answer> single = new LinkedHashMap<>();
      for (Map.Entry<String, String> query : HOSTILE.entrySet()) {
        single.put(query.getKey(), post(sql, query.getValue()));
        System.out.printf("  %-26s %s%n", query.getKey(), single.get(query.getKey()));
      }

      System.out.printf("loading %,d more rows beside tenant queries (the baseline)%n", rows);
      AtomicBoolean baselineLoading = new AtomicBoolean(true);
      AtomicLong baselineRate = new AtomicLong();
      Thread baselineLoader = loader(stack, secondFile, baselineRate, baselineLoading);
      TenantFigures baselineTenants = tenantQueries(sql, tenantIds, Duration.ZERO, baselineLoading);
      baselineLoader.join();
      System.out.printf("  %,d rows/s; tenant queries p50 %.1f ms, p99 %.1f ms%n", baselineRate.get(),
          baselineTenants.p50(), baselineTenants.p99());

      System.out.printf("loading %,d more rows while %d clients send hostile queries for %.1f min%n", rows,
          concurrency, minutes);
      Map<String, Map<Integer, Integer>> hostileStatuses = new ConcurrentHashMap<>();
      Map<String, List<Long>> hostileMs = new ConcurrentHashMap<>();
      // The first thing each query was told with each status other than 200.
      Map<String, String> hostileSaid = new ConcurrentHashMap<>();
      AtomicBoolean attacking = new AtomicBoolean(true);
      ExecutorService attackers = Executors.newFixedThreadPool(concurrency);
      List<String> names = new ArrayList<>(HOSTILE.keySet());
      for (int i = 0; i < concurrency; i++) {
        int client = i;
        attackers.submit(() -> {
          for (int n = client; attacking.get(); n++) {
            String name = names.get(n % names.size());
            Answer answer = post(sql, HOSTILE.get(name));
            hostileStatuses.computeIfAbsent(name, k -> new ConcurrentHashMap<>()).merge(answer.status(), 1,
                Integer::sum);
            hostileMs.computeIfAbsent(name, k -> Collections.synchronizedList(new ArrayList<>())).add(answer.ms());
            if (answer.status() != 200) {
              hostileSaid.putIfAbsent(name + " " + answer.status(), answer.error());
            }
          }
          return null;
        });
      }
      long attackStarted = System.nanoTime();
      AtomicBoolean loading = new AtomicBoolean(true);
      AtomicLong underRate = new AtomicLong();
      Thread loader = loader(stack, thirdFile, underRate, loading);
      long attackEnds = attackStarted + (long) (minutes * 60e9);
      TenantFigures underTenants = tenantQueries(sql, tenantIds,
          Duration.ofNanos(Math.max(0, attackEnds - System.nanoTime())), loading);
      loader.join();
      attacking.set(false);
      attackers.shutdown();
      attackers.awaitTermination(2, TimeUnit.MINUTES);
      Map<Long, String> pidsAfter = pids(stack);

      int fiveHundreds = hostileStatuses.values().stream().flatMap(m -> m.entrySet().stream())
          .filter(e -> e.getKey() >= 500).mapToInt(Map.Entry::getValue).sum()
          + underTenants.statuses().entrySet().stream().filter(e -> e.getKey() >= 500)
          .mapToInt(Map.Entry::getValue).sum();
      Set<Long> died = new java.util.TreeSet<>(pidsBefore.keySet());
      died.removeAll(pidsAfter.keySet());
      String report = report(aloneRate, baselineRate.get(), underRate.get(), aloneTenants, baselineTenants,
          underTenants, single, hostileStatuses, hostileMs, hostileSaid, fiveHundreds, died, pidsBefore);
      Files.createDirectories(out);
      String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
      Path markdown = out.resolve("hostile-queries-" + stamp + ".md");
      Files.writeString(markdown, report);
      System.out.println(report);
      System.out.println("written: " + markdown);
      return fiveHundreds == 0 && died.isEmpty() ? 0 : 1;
    } finally {
      running = null;
      IOUtils.rm(work);
    }
  }

  /** Loads {@code file} on a thread of its own; sets {@code rate} (rows/s) and clears {@code loading} when done. */
  private static Thread loader(EvenkeelPeer stack, Path file, AtomicLong rate, AtomicBoolean loading) {
    Thread loader = new Thread(() -> {
      try {
        rate.set(Math.round(load(stack, file)));
      } catch (Exception e) {
        System.err.println("the load of " + file.getFileName() + " failed: " + e.getMessage());
      } finally {
        loading.set(false);
      }
    }, "load");
    loader.start();
    return loader;
  }

  private static double load(EvenkeelPeer stack, Path file) throws Exception {
    long lines;
    try (var stream = Files.lines(file)) {
      lines = stream.count();
    }
    long started = System.nanoTime();
    stack.loadAndWait(file);
    return lines / ((System.nanoTime() - started) / 1e9);
  }

  /** Tenant-scoped queries one after another for at least {@code length}, and while {@code more} holds. */
  private TenantFigures tenantQueries(String sql, List<Long> tenantIds, Duration length, AtomicBoolean more) {
    Random random = new Random(SEED);
    List<Double> ms = new ArrayList<>();
    Map<Integer, Integer> statuses = new TreeMap<>();
    long end = System.nanoTime() + length.toNanos();
    while (System.nanoTime() < end || more.get()) {
      long tenant = tenantIds.get(random.nextInt(tenantIds.size()));
      String query = random.nextBoolean()
          ? "SELECT row_id, status, price FROM transaction_logs WHERE tenant_id = " + tenant
              + " ORDER BY created_time DESC LIMIT 20"
          : "SELECT status, COUNT(*) FROM transaction_logs WHERE tenant_id = " + tenant + " GROUP BY status";
      Answer answer = post(sql, query);
      statuses.merge(answer.status(), 1, Integer::sum);
      if (answer.status() == 200) {
        ms.add((double) answer.ms());
      }
    }
    double[] sorted = ms.stream().mapToDouble(d -> d).sorted().toArray();
    return new TenantFigures(sorted.length == 0 ? 0 : BenchmarkFigures.percentile(sorted, 0.5),
        sorted.length == 0 ? 0 : BenchmarkFigures.percentile(sorted, 0.99), ms.size(), statuses);
  }

  private Answer post(String url, String sql) {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    long started = System.nanoTime();
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
          HttpResponse.BodyHandlers.ofString());
      long ms = (System.nanoTime() - started) / 1_000_000;
      String error = response.statusCode() == 200 ? ""
          : JSON.readTree(response.body()).path("error").asText(response.body());
      return new Answer(response.statusCode(), ms, error);
    } catch (Exception e) {
      return new Answer(0, (System.nanoTime() - started) / 1_000_000, e.toString());
    }
  }

  /** The stack's processes by pid, with what they run. */
  private static Map<Long, String> pids(EvenkeelPeer stack) {
    Map<Long, String> pids = new TreeMap<>();
    for (ProcessHandle process : stack.processes()) {
      String command = process.info().commandLine().orElse("?");
      pids.put(process.pid(), command.length() > 80 ? command.substring(command.length() - 80) : command);
    }
    return pids;
  }

  private String report(double aloneRate, long baselineRate, long underRate, TenantFigures alone,
      TenantFigures baseline, TenantFigures under, Map<String, Answer> single,
      Map<String, Map<Integer, Integer>> statuses, Map<String, List<Long>> ms, Map<String, String> said,
      int fiveHundreds, Set<Long> died, Map<Long, String> pidsBefore) {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "# Hostile queries beside a load (`bin/evenkeel local`, default layout)%n%n"
        + "%,d rows of %d Zipf(1) tenants per load; %d hostile clients for %.1f min; tenant queries from one client"
        + " (the 5 largest and the 20 smallest tenants).%n%n", rows, tenants, concurrency, minutes));
    md.append("| | alone | beside a load (baseline) | beside a load and the hostile queries | ratio to the baseline"
        + " |\n|---|---:|---:|---:|---:|\n");
    md.append(String.format(Locale.ROOT, "| `load --wait` rows/s | %,.0f | %,d | %,d | %.2f× |%n", aloneRate,
        baselineRate, underRate, (double) underRate / baselineRate));
    md.append(String.format(Locale.ROOT, "| tenant queries p50 ms | %.1f | %.1f | %.1f | %.2f× |%n", alone.p50(),
        baseline.p50(), under.p50(), under.p50() / baseline.p50()));
    md.append(String.format(Locale.ROOT, "| tenant queries p99 ms | %.1f | %.1f | %.1f | %.2f× |%n", alone.p99(),
        baseline.p99(), under.p99(), under.p99() / baseline.p99()));
    md.append(String.format(Locale.ROOT, "| tenant queries (statuses) | %d %s | %d %s | %d %s | |%n%n",
        alone.count(), alone.statuses(), baseline.count(), baseline.statuses(), under.count(), under.statuses()));
    md.append("## Each hostile query alone\n\n| query | status | ms | what it said |\n|---|---:|---:|---|\n");
    single.forEach((name, answer) -> md.append(String.format(Locale.ROOT, "| %s (`%s`) | %d | %d | %s |%n", name,
        HOSTILE.get(name), answer.status(), answer.ms(), answer.error().replace("|", "\\|"))));
    md.append("\n## Hostile queries at ").append(concurrency).append("-way concurrency\n\n")
        .append("| query | answers by status | median ms | max ms |\n|---|---|---:|---:|\n");
    for (String name : HOSTILE.keySet()) {
      List<Long> times = ms.getOrDefault(name, List.of()).stream().sorted().toList();
      md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d |%n", name,
          new TreeMap<>(statuses.getOrDefault(name, Map.of())), times.isEmpty() ? 0 : times.get(times.size() / 2),
          times.isEmpty() ? 0 : times.get(times.size() - 1)));
    }
    md.append("\n| query and status | what it said first |\n|---|---|\n");
    new TreeMap<>(said).forEach((nameAndStatus, error) -> md.append(String.format(Locale.ROOT, "| %s | %s |%n",
        nameAndStatus, error.replace("|", "\\|"))));
    md.append(String.format(Locale.ROOT, "%nAnswers 5xx (hostile and tenant): %d. Processes of the stack that died"
        + " (of %d): %s.%n", fiveHundreds, pidsBefore.size(), died.isEmpty() ? "none"
        : died.stream().map(pid -> pid + " " + pidsBefore.get(pid)).collect(Collectors.joining(", "))));
    return md.toString();
  }
}
