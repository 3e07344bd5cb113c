package io.evenkeel.benchmarks.protocol;

import io.evenkeel.router.protocol.Participant;
import io.evenkeel.router.protocol.RoundOutcome;
import io.evenkeel.router.protocol.RuleMaster;
import io.evenkeel.router.protocol.RuleProposer;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.protocol.RuleRequest;
import java.io.Closeable;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;

/**
 * Commit latency of the rule commit protocol: the time from a proposer's submit to its future completing COMMITTED
 * (publish, every participant's vote, the commit transaction, the outcome seen by the proposer), one round at a time,
 * on an in-process ZooKeeper (curator-test's TestingServer on loopback). Master, participants and proposer each have
 * their own ZooKeeper session, as separate processes would; they share this JVM and its cores.
 *
 * <p>Usage: {@code RuleCommitLatency [--participants 3,16] [--rounds N] [--warmup N]}
 */
public final class RuleCommitLatency {
  private static final int SHARDS = 64;

  private RuleCommitLatency() {}

  /** Latencies of the measured rounds of one setting, in microseconds, sorted. */
  record Result(int participants, long[] micros) {
    long percentile(double q) {
      int rank = (int) Math.ceil(q * micros.length);
      return micros[Math.max(0, Math.min(micros.length - 1, rank - 1))];
    }

    double mean() {
      return Arrays.stream(micros).average().orElse(0);
    }
  }

  public static void main(String[] args) throws Exception {
    int[] participantCounts = {3, 16};
    int rounds = 500;
    int warmup = 50;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        System.out.println("usage: RuleCommitLatency [--participants 3,16] [--rounds N] [--warmup N]");
        return;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--participants" ->
            participantCounts = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--warmup" -> warmup = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown flag " + flag + " (try --help)");
      }
    }
    if (rounds < 1 || warmup < 0) {
      throw new IllegalArgumentException("--rounds must be >= 1 and --warmup >= 0; got: " + rounds + ", " + warmup);
    }
    List<Result> results = new ArrayList<>();
    try (TestingServer zookeeper = new TestingServer(true)) {
      for (int participants : participantCounts) {
        results.add(measure(zookeeper.getConnectString(), participants, rounds, warmup));
      }
    }
    print(System.out, rounds, results);
  }

  static Result measure(String connectString, int participants, int rounds, int warmup) throws Exception {
    if (participants < 1) {
      throw new IllegalArgumentException("--participants must be >= 1; got: " + participants);
    }
    RuleProtocolConfig config = RuleProtocolConfig.builder("/evenkeel/bench-" + participants, SHARDS).build();
    Deque<Closeable> open = new ArrayDeque<>();
    try {
      RuleMaster master = new RuleMaster(client(connectString, open), config, "master");
      open.push(master);
      master.start();
      for (int p = 0; p < participants; p++) {
        Participant participant = new Participant(client(connectString, open), config, "router-" + p);
        open.push(participant);
        participant.start();
      }
      RuleProposer proposer = new RuleProposer(client(connectString, open), config, "bench", Duration.ZERO);
      open.push(proposer);
      proposer.start();
      long[] micros = new long[rounds];
      for (int round = 0; round < warmup + rounds; round++) {
        // A new tenant every round, so that every proposal changes the list and runs a full round.
        long start = System.nanoTime();
        RoundOutcome outcome = proposer.submit(RuleRequest.grow(2, round)).get(30, TimeUnit.SECONDS);
        long took = System.nanoTime() - start;
        if (!outcome.isCommitted()) {
          throw new IllegalStateException("round " + round + " did not commit: " + outcome);
        }
        if (round >= warmup) {
          micros[round - warmup] = TimeUnit.NANOSECONDS.toMicros(took);
        }
      }
      Arrays.sort(micros);
      return new Result(participants, micros);
    } finally {
      while (!open.isEmpty()) {
        open.pop().close();
      }
    }
  }

  static void print(PrintStream out, int rounds, List<Result> results) {
    out.printf(Locale.ROOT, "Rule commit latency (submit -> COMMITTED seen by the proposer), %d rounds each, "
        + "in-process ZooKeeper, %d cores%n", rounds, Runtime.getRuntime().availableProcessors());
    out.printf("%-13s %10s %10s %10s %10s%n", "participants", "p50 ms", "p99 ms", "mean ms", "max ms");
    for (Result result : results) {
      out.printf(Locale.ROOT, "%-13d %10.2f %10.2f %10.2f %10.2f%n", result.participants(),
          result.percentile(0.50) / 1000.0, result.percentile(0.99) / 1000.0, result.mean() / 1000.0,
          result.micros()[result.micros().length - 1] / 1000.0);
    }
  }

  private static CuratorFramework client(String connectString, Deque<Closeable> open) throws InterruptedException {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(connectString)
        .sessionTimeoutMs(15_000)
        .retryPolicy(new ExponentialBackoffRetry(50, 5))
        .build();
    open.push(client);
    client.start();
    if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper connection to " + connectString + " within 15 s");
    }
    return client;
  }
}
