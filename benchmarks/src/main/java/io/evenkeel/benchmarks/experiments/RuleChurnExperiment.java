package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.benchmarks.report.ExperimentOutput;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.workload.SinglesDayReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.lucene.util.IOUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * How often the routing rules change under a Single's-Day replay on {@code bin/evenkeel local}: the replayer the
 * stack runs by default (its kickoff surge, Zipf tenants, repeated updates), with its hot group of tenants moving
 * again and again, as flash sales move through the day. Each move makes new tenants hot (widenings) and leaves the
 * old ones cold (narrowings, after the governor's cool-down); a balancer that oscillates would change them more
 * often. The rules are read from ZooKeeper's committed list, whose effective times date each change.
 */
@Command(name = "rule-churn-experiment", mixinStandardHelpOptions = true,
    description = "Routing rule changes per hour under a Single's-Day replay whose hot tenants keep moving.")
public final class RuleChurnExperiment implements Callable<Integer> {
  private static final int FIRST_MOVE_SECONDS = 90;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout whose bin/evenkeel runs.")
  Path repo;

  @Option(names = "--work", description = "The stack's data go here (default: a new temporary directory, deleted at"
      + " the end).")
  Path work;

  @Option(names = "--out", defaultValue = "benchmarks/results", description = "CSV, PNG and Markdown go here.")
  Path out;

  @Option(names = "--minutes", defaultValue = "30",
      description = "How long the replay runs (default: ${DEFAULT-VALUE}).")
  int minutes;

  @Option(names = "--move-every-seconds", defaultValue = "300",
      description = "The hot group moves 90 s in and then this often (default: ${DEFAULT-VALUE}).")
  int moveEverySeconds;

  @Option(names = "--rate", defaultValue = "1000", description = "Replayed changes/s after the kickoff surge, as"
      + " bin/evenkeel local's --replay-rate (default: ${DEFAULT-VALUE}).")
  double rate;

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new RuleChurnExperiment()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    boolean temporary = work == null;
    work = temporary ? Files.createTempDirectory("evenkeel-rule-churn") : Files.createDirectories(work);
    try (EvenkeelPeer stack = EvenkeelPeer.start(repo, work.resolve("stack"), List.of())) {
      int initialRules = stack.committedRules();
      long start = System.currentTimeMillis();
      String[] replay = {"--bootstrap-servers", stack.bootstrapServers(), "--rate", Double.toString(rate),
          "--move-hotspot-after-seconds", Integer.toString(FIRST_MOVE_SECONDS),
          "--move-hotspot-every-seconds", Integer.toString(moveEverySeconds),
          "--duration-seconds", Long.toString(TimeUnit.MINUTES.toSeconds(minutes))};
      Thread replayer = new Thread(() -> new CommandLine(new SinglesDayReplayer()).execute(replay), "replayer");
      replayer.start();
      while (replayer.isAlive()) {
        replayer.join(TimeUnit.MINUTES.toMillis(1));
        System.out.printf(Locale.ROOT, "%.1f min: %d rules committed since the replay began%n",
            (System.currentTimeMillis() - start) / 60e3, stack.committedRules() - initialRules);
      }
      List<Rule> rules = stack.committedRuleList().rules().stream().skip(initialRules).toList();
      write(start, rules);
    } finally {
      if (temporary) {
        IOUtils.rm(work);
      }
    }
    return 0;
  }

  private void write(long start, List<Rule> rules) throws Exception {
    ExperimentOutput output = new ExperimentOutput(out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    List<List<Object>> rows = new ArrayList<>();
    List<double[]> widened = new ArrayList<>(List.of(new double[] {0, 0}));
    List<double[]> narrowed = new ArrayList<>(List.of(new double[] {0, 0}));
    for (Rule rule : rules) {
      double minute = (rule.effectiveTime() - start) / 60e3;
      List<double[]> series = rule.coolDown() ? narrowed : widened;
      series.add(new double[] {minute, series.get(series.size() - 1)[1] + 1});
      rows.add(List.of(minute, rule.coolDown() ? "narrow" : rule.table() != null ? "table" : "widen",
          rule.offsetSize(), Arrays.stream(rule.tenants()).mapToObj(Long::toString)
              .collect(Collectors.joining(" "))));
    }
    // Each widening's delay: from the replay's start or the hot group's last move before it to the rule in effect.
    double[] delays = rules.stream().filter(rule -> !rule.coolDown()).mapToDouble(rule -> {
      double second = (rule.effectiveTime() - start) / 1e3;
      double lastMove = second < FIRST_MOVE_SECONDS ? 0
          : FIRST_MOVE_SECONDS + Math.floor((second - FIRST_MOVE_SECONDS) / moveEverySeconds) * moveEverySeconds;
      return second - lastMove;
    }).sorted().toArray();
    long narrowings = rules.stream().filter(Rule::coolDown).count();
    long widenings = rules.size() - narrowings;
    double perHour = rules.size() * 60.0 / minutes;
    int moves = (minutes * 60 - FIRST_MOVE_SECONDS) / moveEverySeconds + 1;
    Path csv = output.csv("rule-churn-" + stamp, List.of("minute_in_effect", "kind", "offset_size", "tenants"), rows);
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    series.put("widenings", widened);
    series.put("narrowings (cool-down)", narrowed);
    Path png = output.lineChart("rule-churn-" + stamp, "Routing rules committed under a Single's-Day replay",
        "minutes since the replay began (the hot group moves at 1.5 min, then every " + moveEverySeconds / 60.0
            + " min)", "rules in effect so far", series, false);
    String summary = String.format(Locale.ROOT, "| replay | hot group moves | rules | widenings | narrowings | rule"
        + " changes per hour | per move of the hot group | widening in effect after the move: p50 / p99 / max |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|\n| %d min | %d | %d | %d | %d | %.1f | %.1f | %.0f / %.0f / %.0f"
        + " s |\n", minutes, moves, rules.size(), widenings, narrowings, perHour, rules.size() / (double) moves,
        ReplayPoint.quantile(delays, 0.5), ReplayPoint.quantile(delays, 0.99), ReplayPoint.quantile(delays, 1));
    String markdown = String.format(Locale.ROOT, """
        # Routing rule changes under a Single's-Day replay

        `java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.experiments.RuleChurnExperiment --minutes
        %d --move-every-seconds %d --rate %.0f` on %s: `bin/evenkeel local` with its defaults (dynamic policy,
        10 s monitor windows, the governor's 5 min cool-down) and the replayer it runs by default (%.0f changes/s
        after a 30 s kickoff surge at 4×, Zipf θ = 1 over 10,000 tenants, 30%% updates of recent rows), whose hot
        group of tenants moves 90 s in and then every %d s. A widening's delay runs from the replay's start or the
        group's last move before it to the rule's effective time. Data: `%s`.

        %s
        ![%s](%s)
        """, minutes, moveEverySeconds, rate, ExperimentOutput.machine(), rate, moveEverySeconds, csv.getFileName(),
        summary, png.getFileName(), png.getFileName());
    Path md = out.resolve("rule-churn-" + stamp + ".md");
    Files.writeString(md, markdown);
    System.out.print(summary);
    System.out.println("results: " + md);
  }
}
