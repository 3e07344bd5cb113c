package io.evenkeel.workload;

import io.evenkeel.schemas.codec.AvroTrust;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Replays a Single's-Day-shaped workload into the ingest topic: a kickoff surge at several times the base rate,
 * Zipf(θ) tenants, repeated updates of recent rows, and a hot group of tenants that moves mid-run. Records are Avro
 * single-object {@code TransactionLogChange}s keyed by {@code tenant:row}, as any producer of the topic writes them.
 * Runs until {@code --duration} passes or it is stopped (SIGTERM flushes what was produced).
 */
@Command(name = "singles-day-replayer", mixinStandardHelpOptions = true,
    description = "Streams a skewed, Single's-Day-shaped workload of transaction_logs changes to Kafka.")
public final class SinglesDayReplayer implements Callable<Integer> {
  @Option(names = "--bootstrap-servers", required = true)
  String bootstrapServers;

  @Option(names = "--topic", defaultValue = "transaction-logs")
  String topic;

  @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties (security) for "
      + "--bootstrap-servers.")
  Path kafkaConfig;

  @Option(names = "--rate", defaultValue = "1000", description = "Changes per second after the surge (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--surge-factor", defaultValue = "4", description = "Rate multiplier during the kickoff surge.")
  double surgeFactor;

  @Option(names = "--surge-seconds", defaultValue = "30")
  long surgeSeconds;

  @Option(names = "--theta", defaultValue = "1.0", description = "Zipf skew of tenants (0 = uniform).")
  double theta;

  @Option(names = "--tenants", defaultValue = "10000")
  int tenants;

  @Option(names = "--update-share", defaultValue = "0.3", description = "Fraction of changes that update a recent row.")
  double updateShare;

  @Option(names = "--move-hotspot-after-seconds", defaultValue = "90",
      description = "When the hot group of tenants moves; 0 never.")
  long moveAfterSeconds;

  @Option(names = "--move-hotspot-every-seconds", defaultValue = "0",
      description = "After the first move, the hot group moves again this often (flash sales through the day); 0 once.")
  long moveEverySeconds;

  @Option(names = "--seed", defaultValue = "11")
  long seed;

  @Option(names = "--duration-seconds", defaultValue = "0", description = "Stop after this long; 0 runs until stopped.")
  long durationSeconds;

  private volatile boolean stopping;

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new SinglesDayReplayer()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (!(rate > 0) || !(surgeFactor >= 1)) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--rate must be > 0 and --surge-factor >= 1; got: " + rate + " and " + surgeFactor);
    }
    // Row ids from the clock: a replayer restarted on the same data inserts new rows rather than stale versions of
    // the previous run's (room for a thousand inserts per millisecond of wall time between runs).
    long firstRowId = System.currentTimeMillis() * 1_000;
    SinglesDayTrace trace = new SinglesDayTrace(seed, tenants, theta, updateShare, firstRowId);
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopping = true;
      try {
        done.await(15, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "replayer-shutdown"));
    // Kafka's default batch size: 16 KiB.
    Properties clientProperties = new Properties();
    if (kafkaConfig != null) {
      try (InputStream in = Files.newInputStream(kafkaConfig)) {
        clientProperties.load(in);
      }
    }
    try (ChangeProducer producer = new ChangeProducer(bootstrapServers, clientProperties, topic,
        "singles-day-replayer", 16_384)) {
      long start = System.nanoTime();
      long sent = 0;
      double allowed = 0;
      long last = start;
      long lastReport = start;
      long nextMoveSeconds = moveAfterSeconds;
      System.out.printf("replaying: %.0f changes/s (x%.1f for the first %d s), theta %.2f over %d tenants%n",
          rate, surgeFactor, surgeSeconds, theta, tenants);
      while (!stopping && !producer.failed()) {
        long now = System.nanoTime();
        double elapsedS = (now - start) / 1e9;
        if (durationSeconds > 0 && elapsedS >= durationSeconds) {
          break;
        }
        if (nextMoveSeconds > 0 && elapsedS >= nextMoveSeconds) {
          trace.moveHotspot();
          nextMoveSeconds = moveEverySeconds > 0 ? nextMoveSeconds + moveEverySeconds : 0;
          System.out.printf("%.0f s: the hot group moved; hottest tenant is now %d%n", elapsedS,
              trace.tenants().tenantAtRank(1));
        }
        // A token bucket: the rate of this instant accrues credit; at most one second of it is kept, so a stall
        // (a full producer buffer) is not followed by a burst.
        double currentRate = elapsedS < surgeSeconds ? rate * surgeFactor : rate;
        allowed = Math.min(allowed + currentRate * (now - last) / 1e9, currentRate);
        last = now;
        for (; allowed >= 1; allowed--) {
          producer.send(trace.next(System.currentTimeMillis()));
          sent++;
        }
        if (now - lastReport >= TimeUnit.SECONDS.toNanos(10)) {
          System.out.printf("%.0f s: %,d changes sent (now %.0f/s)%n", elapsedS, sent, currentRate);
          lastReport = now;
        }
        Thread.sleep(5);
      }
      System.out.printf("stopped after %,d changes%n", sent);
      producer.flush();
    } finally {
      done.countDown();
    }
    return 0;
  }
}
