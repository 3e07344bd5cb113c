package io.evenkeel.benchmarks.cluster;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.benchmarks.report.PaperReport;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.schemas.codec.AvroTrust;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Adding a shard server to a running stack under load, on the user's path: {@code bin/evenkeel local} with two
 * servers, rows loaded with {@code bin/evenkeel load --wait}, then a second {@code bin/evenkeel load} going on, and
 * tenant queries over HTTP all along. Some seconds into that load, {@code bin/evenkeel add-server} adds a third server and waits until the master has moved its share of
 * copies onto it. Prints, and writes as Markdown, CSV and a PNG timeline: the time until the server joined and until
 * the servers were even, and the ingest rate (rows searchable on the primaries per second) and query latency before,
 * during and after the moves.
 */
@Command(name = "add-server-benchmark", mixinStandardHelpOptions = true,
    description = "Adds a shard server to a loaded local stack under full-speed ingest and queries; prints the time "
        + "to even servers and the throughput and latency before, during and after.")
public final class AddServerBenchmark implements Callable<Integer> {
  private static final int BEFORE_SECONDS = 60;

  @Option(names = "--rows", defaultValue = "400000", description = "Rows loaded before (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--stream-chunks", defaultValue = "40",
      description = "Chunks of --rows / 2 rows, loaded by one `bin/evenkeel load` while the server is added, enough"
          + " to outlast the moves; the load is stopped once the phase after them is measured (default:"
          + " ${DEFAULT-VALUE}).")
  int streamChunks;

  @Option(names = "--tenants", defaultValue = "500")
  int tenants;

  @Option(names = "--shards", defaultValue = "12")
  int shards;

  @Option(names = "--add-after-s", defaultValue = "120",
      description = "Seconds of the load before the server is added; the last " + BEFORE_SECONDS + " of them, after"
          + " the loader and the job warmed up, are the phase before (default: ${DEFAULT-VALUE}).")
  int addAfterSeconds;

  @Option(names = "--after-s", defaultValue = "60",
      description = "Seconds measured once the servers are even (default: ${DEFAULT-VALUE}).")
  int afterSeconds;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (bin/evenkeel).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results")
  Path out;

  @Option(names = "--report", defaultValue = "benchmarks/REPORT.md")
  Path report;

  /** A second of the timeline: changes the ingest job has written to their shards (acknowledged), or -1. */
  record WrittenSample(double seconds, long written) {}

  /** One query: when it was sent, how long it took, whether it answered 200. */
  record QuerySample(double seconds, double millis, boolean ok) {}

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new AddServerBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Path work = Files.createTempDirectory("evenkeel-add-server-");
    PeerRows generated = PeerRows.generate(31, rows, tenants);
    Path preload = work.resolve("preload.jsonl");
    generated.writeJsonLines(preload);
    // One file, loaded by one `load` while the server is added: the pipeline keeps pace with the loader, so the
    // rate measured is a user's load going on meanwhile.
    PeerRows chunk = PeerRows.generate(32, rows / 2, tenants);
    Path stream = work.resolve("stream.jsonl");
    for (int i = 0; i < streamChunks; i++) {
      Path file = work.resolve("chunk.jsonl");
      chunk.shifted(10_000_000L * (i + 1)).writeJsonLines(file);
      Files.write(stream, Files.readAllBytes(file), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
    List<Long> tenantIds = generated.rows().stream().map(row -> row.getTenantId()).distinct().limit(100).toList();
    long loaded = (long) streamChunks * (rows / 2);
    System.out.printf(Locale.ROOT, "rows: %,d before, %,d loaded meanwhile; stack: 2 shard servers, %d shards, 1 "
        + "replica%n", rows, loaded, shards);

    Path dataDir = work.resolve("stack");
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, dataDir, List.of("--shard-servers", "2", "--shards",
        Integer.toString(shards), "--replicas", "1"));
        CuratorFramework zookeeper = ZooKeeperClients.start("127.0.0.1:" + stack.basePort(), null,
            new ExponentialBackoffRetry(200, 5));
        ClusterStateClient cluster = new ClusterStateClient(zookeeper, "/evenkeel/local");
        Admin kafka = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
      String group = stack.writtenOffsetsGroup();
      cluster.start();
      long t = System.nanoTime();
      stack.loadAndWait(preload);
      System.out.printf(Locale.ROOT, "loaded %,d rows in %.1f s%n", rows, (System.nanoTime() - t) / 1e9);

      long start = System.nanoTime();
      List<WrittenSample> written = Collections.synchronizedList(new ArrayList<>());
      List<QuerySample> queries = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean running = new AtomicBoolean(true);
      long writtenBefore = written(kafka, group);
      Thread sampler = thread("written-offsets sampler", () -> {
        while (running.get()) {
          long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
          long now = written(kafka, group);
          written.add(new WrittenSample(seconds(start), now < 0 ? -1 : now - writtenBefore));
          TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
        }
      });
      Random random = new Random(7);
      Thread querier = thread("querier", () -> {
        while (running.get()) {
          long sent = System.nanoTime();
          boolean ok = true;
          try {
            stack.rows("SELECT status, COUNT(*), SUM(price) FROM transaction_logs WHERE tenant_id = ? GROUP BY status",
                List.of(tenantIds.get(random.nextInt(tenantIds.size()))));
          } catch (IOException e) {
            ok = false;
            System.out.printf(Locale.ROOT, "[%5.1f s] query failed: %s%n", seconds(start), e.getMessage().lines()
                .findFirst().orElse(""));
          }
          queries.add(new QuerySample(seconds(start), (System.nanoTime() - sent) / 1e6, ok));
          Thread.sleep(100);
        }
      });
      Process loader = new ProcessBuilder(repo.resolve("bin/evenkeel").toString(), "load", stream.toString(),
          "--data-dir", dataDir.toString()).redirectErrorStream(true).redirectOutput(work.resolve("load.log").toFile())
          .start();
      sampler.start();
      querier.start();
      Thread.sleep(TimeUnit.SECONDS.toMillis(addAfterSeconds));

      double added = seconds(start);
      System.out.printf(Locale.ROOT, "[%5.1f s] bin/evenkeel add-server%n", added);
      String addOutput = run(repo.resolve("bin/evenkeel").toString(), "add-server", "--data-dir",
          dataDir.toString());
      System.out.print(addOutput.lines().map(line -> "    " + line + "\n").reduce("", String::concat));
      double balanced = seconds(start);
      double joined = added + figure(addOutput, "joined \\(([0-9.]+) s\\)");
      double balancedAfter = figure(addOutput, "balanced in ([0-9.]+) s");
      Thread.sleep(TimeUnit.SECONDS.toMillis(afterSeconds));
      running.set(false);
      sampler.join();
      querier.join();
      if (!loader.isAlive()) {
        System.out.println("the load ended before the phase after the moves did: add --stream-chunks");
      }
      loader.destroy();
      loader.waitFor();
      ClusterState state = cluster.current();
      report(new ArrayList<>(written), new ArrayList<>(queries), added, joined, balanced, balancedAfter, state,
          loaded);
    }
    return 0;
  }

  private void report(List<WrittenSample> written, List<QuerySample> queries, double added, double joined,
      double balanced, double balancedAfter, ClusterState state, long loaded) throws IOException {
    // The job records its written offsets at each checkpoint, so a second shows nothing or a burst: rates are over
    // 10 s windows (the timeline) and over whole phases, until the load's last change is in.
    List<WrittenSample> known = written.stream().filter(sample -> sample.written() >= 0).toList();
    double loadEnd = known.stream().filter(sample -> sample.written() >= loaded).mapToDouble(WrittenSample::seconds)
        .min().orElse(Double.MAX_VALUE);
    double loadStart = known.stream().filter(sample -> sample.written() > 0).mapToDouble(WrittenSample::seconds)
        .min().orElse(0);
    List<double[]> rates = new ArrayList<>();
    for (WrittenSample sample : known) {
      if (sample.seconds() >= 10 && sample.seconds() <= loadEnd) {
        rates.add(new double[] {sample.seconds(), rate(known, sample.seconds() - 10, sample.seconds())});
      }
    }
    // Before: the last seconds before the add, once the loader and the job have warmed up.
    double[][] phases = {{Math.max(loadStart, added - BEFORE_SECONDS), added}, {added, balanced},
        {balanced, Double.MAX_VALUE}};
    String[] names = {"before (2 servers)", "during the moves", "after (3 servers, even)"};
    StringBuilder table = new StringBuilder("| phase | seconds of load | rows written/s | query p50 ms | "
        + "query p99 ms | queries | failed |\n|---|---:|---:|---:|---:|---:|---:|\n");
    Map<String, Double> ingestByPhase = new LinkedHashMap<>();
    for (int i = 0; i < phases.length; i++) {
      double from = phases[i][0];
      double to = phases[i][1];
      double loading = Math.max(0, Math.min(to, loadEnd) - from);
      double ingest = loading < 5 ? Double.NaN : rate(known, from, Math.min(to, loadEnd));
      List<QuerySample> phaseQueries = queries.stream().filter(q -> q.seconds() > from && q.seconds() <= to)
          .toList();
      List<Double> latencies = phaseQueries.stream().filter(QuerySample::ok).map(QuerySample::millis).toList();
      ingestByPhase.put(names[i], ingest);
      table.append(String.format(Locale.ROOT, "| %s | %.0f | %,.0f | %.1f | %.1f | %d | %d |%n", names[i], loading,
          ingest, percentile(latencies, 0.5), percentile(latencies, 0.99), phaseQueries.size(),
          phaseQueries.stream().filter(q -> !q.ok()).count()));
    }
    List<Double> ingest = new ArrayList<>(ingestByPhase.values());
    String summary = String.format(Locale.ROOT, "The third server joined %.1f s after `add-server` was run and the "
            + "servers were even %.1f s after that (%.1f s in all); copies per server %s, primaries %s. Ingest during "
            + "the moves: %.2f× the rate before; after: %.2f×.", joined - added, balancedAfter - (joined - added),
        balanced - added, perServer(state, false), perServer(state, true), ingest.get(1) / ingest.get(0),
        ingest.get(2) / ingest.get(0));

    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    ExperimentOutput output = new ExperimentOutput(out);
    List<List<Object>> timeline = new ArrayList<>();
    rates.forEach(r -> timeline.add(List.of("ingest_rows_per_s", r[0], r[1])));
    queries.forEach(q -> timeline.add(List.of(q.ok() ? "query_ms" : "query_failed_ms", q.seconds(), q.millis())));
    Path csv = output.csv("add-server-" + stamp, List.of("series", "seconds", "value"), timeline);
    Path ratePng = output.lineChart("add-server-" + stamp + "-ingest", String.format(Locale.ROOT,
            "Ingest while a server is added (at %.0f s, even at %.0f s)", added, balanced), "seconds",
        "rows written per second (10 s windows)", Map.of("rows/s", rates), false);
    List<double[]> latency = queries.stream().filter(QuerySample::ok)
        .map(q -> new double[] {q.seconds(), q.millis()}).toList();
    Path queryPng = output.lineChart("add-server-" + stamp + "-queries", String.format(Locale.ROOT,
            "Tenant query latency (server added at %.0f s, even at %.0f s)", added, balanced), "seconds", "ms",
        Map.of("query ms", latency), true);
    String setup = String.format(Locale.ROOT, "`bin/evenkeel local --no-replay --shard-servers 2 --shards %d "
        + "--replicas 1`; %,d rows (%d Zipf(1) tenants) loaded with `load --wait`; then %,d more with one `load` "
        + "(the pipeline keeps pace with the loader) while a grouped tenant query goes over HTTP every 100 ms; "
        + "`bin/evenkeel add-server` %d s into that load; measured until %d s after the servers were even. Ingest "
        + "rate: changes the ingest job has written to their shards (its written offsets in Kafka), per second",
        shards, rows, tenants, loaded, addAfterSeconds, afterSeconds);
    PaperReport.section(report, "add-server", "Adding a shard server under load",
        "java -cp benchmarks/target/benchmarks.jar " + getClass().getName() + " --rows " + rows
            + " --stream-chunks " + streamChunks, setup, csv, table + "\n" + summary + "\n",
        List.of(ratePng, queryPng));
    Path markdown = out.resolve("add-server-" + stamp + ".md");
    Files.writeString(markdown, "## Adding a shard server under load\n\n" + setup + ".\n\n" + table + "\n" + summary
        + "\n\n![ingest](" + ratePng.getFileName() + ")\n![queries](" + queryPng.getFileName() + ")\n");
    System.out.println();
    System.out.print(table);
    System.out.println(summary);
    System.out.println("written: " + markdown + ", " + csv + ", " + ratePng + ", " + queryPng);
  }

  /** The changes the ingest job has written to their shards: its written offsets summed, or -1 when unknown. */
  private static long written(Admin kafka, String group) {
    try {
      return kafka.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS).values()
          .stream().filter(Objects::nonNull).mapToLong(OffsetAndMetadata::offset).sum();
    } catch (ExecutionException | TimeoutException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String perServer(ClusterState state, boolean primaries) {
    return String.join(", ", state.servers().keySet().stream().sorted()
        .map(server -> String.valueOf(primaries ? state.primariesOn(server) : state.copiesOn(server))).toList());
  }

  private static double figure(String output, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(output);
    if (!matcher.find()) {
      throw new IllegalStateException("no '" + regex + "' in the output of add-server:\n" + output);
    }
    return Double.parseDouble(matcher.group(1));
  }

  /** Changes written per second between the samples nearest {@code from} and {@code to}. */
  private static double rate(List<WrittenSample> samples, double from, double to) {
    WrittenSample first = nearest(samples, from);
    WrittenSample last = nearest(samples, to);
    return last.seconds() <= first.seconds() ? Double.NaN
        : (last.written() - first.written()) / (last.seconds() - first.seconds());
  }

  private static WrittenSample nearest(List<WrittenSample> samples, double seconds) {
    return samples.stream().min(Comparator.comparingDouble(sample -> Math.abs(sample.seconds() - seconds)))
        .orElseThrow();
  }

  private static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /** Runs a command to its end; answers its output, or throws with it when it fails. */
  private static String run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n" + output);
    }
    return output;
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread thread(String name, Body body) {
    Thread thread = new Thread(() -> {
      try {
        body.run();
      } catch (Exception e) {
        throw new IllegalStateException(name + " failed", e);
      }
    }, name);
    thread.setDaemon(true);
    return thread;
  }
}
