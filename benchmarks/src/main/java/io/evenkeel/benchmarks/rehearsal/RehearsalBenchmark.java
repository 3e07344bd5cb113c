package io.evenkeel.benchmarks.rehearsal;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.benchmarks.peer.SqlEndpoint;
import io.evenkeel.benchmarks.query.BenchmarkFigures;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The multi-host rehearsal ({@link Rehearsal}) beside the local stack with the same shards and replicas ({@code
 * bin/evenkeel local --shard-servers 3 --shards 12 --replicas 1}) on this machine, and the rehearsal's drills. On
 * each: {@code bin/evenkeel load FILE --wait} of {@code --rows} rows (docs per second to searchable), then a steady
 * load at {@code --rate} rows a second with {@code acks=all} for {@code --steady-seconds}, every 50th row a probe whose
 * write-to-searchable delay runs from its send until SQL finds it. With the steady load still running, the rehearsal
 * then loses each engine's process in turn with SIGKILL (a ZooKeeper server, the leader; a Kafka node; a task
 * manager; the leading JobManager; a shard server), each started again as a supervisor would, and goes through a
 * rolling restart of every process; last, SQL counts the load's rows against what Kafka acknowledged.
 *
 * <p>Run from the checkout after {@code ./mvnw -B -q package -DskipTests}: {@code java -cp
 * benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.rehearsal.RehearsalBenchmark [--rows N] [--rate R]
 * [--steady-seconds S] [--no-local] [--no-drills | --drill NAME,...]}. Prints a Markdown report and writes it to {@code
 * --out/rehearsal-<time>.md}.
 */
@Command(name = "rehearsal-benchmark", mixinStandardHelpOptions = true)
public final class RehearsalBenchmark implements Callable<Integer> {
  private static final int TENANTS = 500;
  private static final int PROBE_EVERY = 50;
  /** The steady load's row ids start here, past the loaded file's. */
  private static final long STEADY_ROWS_FROM = 100_000_000L;

  @Option(names = "--rows", defaultValue = "100000",
      description = "Rows of the timed load (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--rate", defaultValue = "1000", description = "The steady load's rows a second (default: "
      + "${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--steady-seconds", defaultValue = "60", description = "How long the steady load's delays are "
      + "measured (default: ${DEFAULT-VALUE}).")
  int steadySeconds;

  @Option(names = "--no-local", description = "Leave the local stack out.")
  boolean noLocal;

  @Option(names = "--no-drills", description = "Leave the drills out.")
  boolean noDrills;

  @Option(names = "--drill", split = ",", description = "Only these drills: zookeeper, kafka, taskmanager, "
      + "jobmanager, shardserver, rolling (default: all).")
  List<String> onlyDrills;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results",
      description = "Where the Markdown goes (default: ${DEFAULT-VALUE}).")
  Path out;

  /** One system's figures: load to searchable, and the steady load's write-to-searchable delays. */
  record Figures(String system, double docsPerSecond, double p50Ms, double p99Ms, int probes) {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new RehearsalBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (onlyDrills != null && !RehearsalDrills.ALL.keySet().containsAll(onlyDrills)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--drill names one of "
          + RehearsalDrills.ALL.keySet() + "; got " + onlyDrills);
    }
    repo = repo.toAbsolutePath().normalize();
    Path work = Files.createTempDirectory("evenkeel-rehearsal-");
    try {
      Path file = work.resolve("rows.jsonl");
      PeerRows.generate(42, rows, TENANTS).writeJsonLines(file);
      List<Figures> figures = new ArrayList<>();
      if (!noLocal) {
        System.out.println("local stack: bin/evenkeel local --shard-servers 3 --shards 12 --replicas 1");
        try (EvenkeelPeer stack = EvenkeelPeer.start(repo, work.resolve("local"), List.of("--shard-servers",
            Integer.toString(Rehearsal.SHARD_SERVERS), "--shards", Integer.toString(Rehearsal.SHARDS),
            "--replicas", Integer.toString(Rehearsal.REPLICAS)))) {
          double docsPerSecond = timedLoad(file, "--data-dir", work.resolve("local").toString());
          try (SteadyPhase steady = new SteadyPhase(stack, stack.bootstrapServers())) {
            figures.add(steady.measure("local stack", docsPerSecond));
          }
        }
      }
      System.out.println("rehearsal: three hosts' processes on loopback");
      List<Drill> drills = new ArrayList<>();
      LoadedRows loaded;
      try (Rehearsal rehearsal = Rehearsal.start(repo, work.resolve("rehearsal"), System.out)) {
        double docsPerSecond = timedLoad(file, "--bootstrap-servers", rehearsal.bootstrapServers(),
            "--topic", Rehearsal.TOPIC, "--url", rehearsal.queryServiceUrl(),
            "--written-offsets-group", Rehearsal.WRITTEN_OFFSETS_GROUP);
        try (SteadyPhase steady = new SteadyPhase(rehearsal, rehearsal.bootstrapServers())) {
          figures.add(steady.measure("rehearsal", docsPerSecond));
          if (!noDrills) {
            drills.addAll(RehearsalDrills.run(onlyDrills != null ? onlyDrills : RehearsalDrills.ALL.keySet(),
                rehearsal, steady.watch, System.out));
          }
          loaded = steady.finish(rehearsal);
        }
      }
      String report = report(figures, drills, loaded);
      System.out.println(report);
      Files.createDirectories(out);
      Path written = out.resolve("rehearsal-"
          + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".md");
      Files.writeString(written, report);
      System.out.println("written to " + written);
      return loaded.lost() == 0 && loaded.duplicated() == 0 ? 0 : 1;
    } finally {
      IOUtils.rm(work);
    }
  }

  /** {@code bin/evenkeel load FILE --wait} with {@code target}'s flags; docs per second to searchable. */
  private double timedLoad(Path file, String... target) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("load", file.toString(), "--wait"));
    args.addAll(List.of(target));
    long started = System.nanoTime();
    EvenkeelPeer.run(repo, args);
    double docsPerSecond = rows / ((System.nanoTime() - started) / 1e9);
    System.out.printf(Locale.ROOT, "  load --wait of %,d rows: %,.0f docs/s%n", rows, docsPerSecond);
    return docsPerSecond;
  }

  /** The steady load on one system, with its watch. */
  private final class SteadyPhase implements AutoCloseable {
    final SearchableWatch watch;
    final SteadyLoad load;

    SteadyPhase(SqlEndpoint sql, String bootstrapServers) {
      watch = new SearchableWatch(sql, PROBE_EVERY);
      load = new SteadyLoad(bootstrapServers, Rehearsal.TOPIC, 7, TENANTS, STEADY_ROWS_FROM, rate, watch::sent);
    }

    /** Waits {@code --steady-seconds} and measures the delays of the probes sent then. */
    Figures measure(String system, double docsPerSecond) throws InterruptedException {
      long from = System.nanoTime();
      TimeUnit.SECONDS.sleep(steadySeconds);
      long to = System.nanoTime();
      watch.awaitProbes(TimeUnit.SECONDS.toNanos(30));
      double[] delays = watch.probes().stream().filter(p -> p.sentNanos() >= from && p.sentNanos() < to)
          .mapToDouble(p -> p.delayNanos() / 1e6).sorted().toArray();
      Figures figures = new Figures(system, docsPerSecond, BenchmarkFigures.percentile(delays, 0.5),
          BenchmarkFigures.percentile(delays, 0.99), delays.length);
      System.out.printf(Locale.ROOT, "  steady %,.0f rows/s: write-to-searchable p50 %.0f ms, p99 %.0f ms (%d "
          + "probes)%n", rate, figures.p50Ms(), figures.p99Ms(), figures.probes());
      return figures;
    }

    /** Stops the load and counts its rows by SQL. */
    LoadedRows finish(SqlEndpoint sql) throws Exception {
      load.stop();
      return LoadedRows.await(sql, load, Duration.ofSeconds(90));
    }

    @Override
    public void close() throws Exception {
      load.close();
      watch.close();
    }
  }

  private String report(List<Figures> figures, List<Drill> drills, LoadedRows loaded) {
    StringBuilder md = new StringBuilder("# Rehearsal: three hosts' processes beside the local stack\n\n");
    md.append("Machine: ").append(ExperimentOutput.machine()).append(". Command: `java -cp benchmarks/target/"
        + "benchmarks.jar io.evenkeel.benchmarks.rehearsal.RehearsalBenchmark").append(String.format(Locale.ROOT,
        " --rows %d --rate %.0f --steady-seconds %d`.%n%n", rows, rate, steadySeconds));
    md.append("| system | `load --wait` docs/s | steady ").append(String.format(Locale.ROOT, "%,.0f", rate))
        .append(" rows/s: write-to-searchable p50 / p99 ms | probes |\n|---|---:|---:|---:|\n");
    for (Figures f : figures) {
      md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.0f / %.0f | %d |%n", f.system(), f.docsPerSecond(),
          f.p50Ms(), f.p99Ms(), f.probes()));
    }
    if (!drills.isEmpty()) {
      md.append("\nDrills on the rehearsal, one after the other under the steady load (each fault stands "
          + RehearsalDrills.OBSERVE.toSeconds() + " s before its repair):\n\n| drill | ingest's longest stop: "
          + "rows waiting, none found, s | ingest resumed: that stop's end after the fault, s | caught up: longest "
          + "write-to-searchable of a row sent after the fault, s | ... during the repair, s | longest without an "
          + "answered query, s | longest without a row sent, s | fault to repaired, s |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Drill d : drills) {
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f |%n", d.name(),
            Drill.seconds(d.stoppedSeconds()), Drill.seconds(d.resumedSeconds()), Drill.seconds(d.faultStallSeconds()),
            d.repairStallSeconds(), d.queryGapSeconds(), d.sendPauseSeconds(), d.tookSeconds()));
      }
    }
    md.append(String.format(Locale.ROOT, "%nThe steady load's rows by SQL: %,d acknowledged by Kafka (%,d sends "
        + "failed), %,d found, %,d distinct: **%,d lost, %,d duplicated**.%n", loaded.acknowledged(),
        loaded.failedSends(), loaded.found(), loaded.distinct(), loaded.lost(), loaded.duplicated()));
    return md.toString();
  }
}
