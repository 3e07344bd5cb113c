package io.evenkeel.benchmarks.replay;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.workload.ChangeProducer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Streams a trace file ({@link TraceGenerator}) into the ingest topic: at the trace's own pace (its surge included),
 * sped up or slowed down, at a fixed rate, or as fast as Kafka takes it. Each change's times move from the trace's
 * start to the replay's and its row id past every earlier replay's, so a trace replayed again into the same
 * Evenkeel adds new rows instead of stale versions of old ones. Records are Avro single-object {@code
 * TransactionLogChange}s keyed by {@code tenant:row}, as the native producers write them. Prints its progress every
 * 5 s and, at the end, the rate it reached and how far it fell behind its schedule.
 */
@Command(name = "trace-replayer", mixinStandardHelpOptions = true,
    description = "Streams a Single's-Day trace file into Kafka at its own pace, a fixed rate, or as fast as possible.")
public final class TraceReplayer implements Callable<TraceReplayer.Summary> {
  @Option(names = "--trace", required = true, description = "The trace file.")
  Path trace;

  @Option(names = "--bootstrap-servers", required = true)
  String bootstrapServers;

  /** The ingest topic, as the local stack names it. */
  public static final String TOPIC = "transaction-logs";

  @Option(names = "--topic", defaultValue = TOPIC)
  String topic;

  @ArgGroup(exclusive = true)
  Pace pace = new Pace();

  static final class Pace {
    @Option(names = "--speed", defaultValue = "1", description = "The trace's own pace times this (default: 1).")
    double speed = 1;

    @Option(names = "--rate", description = "A fixed rate, changes a second, instead of the trace's pace.")
    Double rate;

    @Option(names = "--as-fast-as-possible", description = "No pace: as fast as Kafka takes the changes.")
    boolean asFastAsPossible;
  }

  private SendListener listener = (change, nanos) -> {};

  /**
   * Told of each change as it is sent: the change as sent (times and row id moved) and {@link System#nanoTime}. The
   * change object is reused for the next one: read it, do not keep it.
   */
  public interface SendListener {
    void sent(TransactionLogChange change, long nanoTime);
  }

  /** A replay of {@code trace} into {@code bootstrapServers}' ingest topic at {@code speed} times its own pace. */
  public static TraceReplayer atSpeed(Path trace, String bootstrapServers, double speed) {
    TraceReplayer replayer = new TraceReplayer();
    replayer.trace = trace;
    replayer.bootstrapServers = bootstrapServers;
    replayer.topic = TOPIC;
    replayer.pace.speed = speed;
    return replayer;
  }

  /** Tells {@code newListener} of each change sent (on the replaying thread: it must be quick). */
  public TraceReplayer onSend(SendListener newListener) {
    this.listener = newListener;
    return this;
  }

  /** What a replay did: changes sent, in how long, and the furthest it fell behind its schedule. */
  public record Summary(long changes, double seconds, double maxBehindSeconds) {
    public double rate() {
      return changes / seconds;
    }
  }

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new TraceReplayer()).execute(args));
  }

  @Override
  public Summary call() throws Exception {
    if (!(pace.speed > 0) || pace.rate != null && !(pace.rate > 0)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--speed and --rate must be > 0");
    }
    try (DataFileReader<TransactionLogChange> reader =
            new DataFileReader<>(trace.toFile(), new SpecificDatumReader<>(TransactionLogChange.class));
        ChangeProducer producer = new ChangeProducer(bootstrapServers, topic, "trace-replayer", 256 * 1024)) {
      Map<String, String> metadata = new HashMap<>();
      for (String key : reader.getMetaKeys()) {
        metadata.put(key, reader.getMetaString(key));
      }
      TraceSpec spec = TraceSpec.fromMetadata(metadata);
      System.out.printf("replaying %s (%s) into %s, %s%n", trace, spec, topic, pace.asFastAsPossible
          ? "as fast as possible" : pace.rate != null ? String.format(Locale.ROOT, "at %,.0f changes/s", pace.rate)
              : String.format(Locale.ROOT, "at %.2fx its pace", pace.speed));
      long base = System.currentTimeMillis();
      // Row ids past any earlier replay's (room for a thousand inserts a millisecond between replays).
      long rowBase = base * 1_000;
      long start = System.nanoTime();
      long lastReport = start;
      long sent = 0;
      long maxBehind = 0;
      TransactionLogChange change = null;
      while (reader.hasNext() && !producer.failed()) {
        change = reader.next(change);
        long due = dueNanos(start, change.getModifiedTime(), sent);
        long now = System.nanoTime();
        if (due > now + 1_000_000) {
          TimeUnit.NANOSECONDS.sleep(due - now);
          now = System.nanoTime();
        }
        if (!pace.asFastAsPossible) {
          maxBehind = Math.max(maxBehind, now - due);
        }
        change.setCreatedTime(base + change.getCreatedTime());
        change.setModifiedTime(base + change.getModifiedTime());
        change.setRowId(rowBase + change.getRowId());
        producer.send(change);
        listener.sent(change, now);
        sent++;
        if (now - lastReport >= TimeUnit.SECONDS.toNanos(5)) {
          System.out.printf(Locale.ROOT, "%.0f s: %,d changes sent (%,.0f/s)%s%n", (now - start) / 1e9, sent,
              sent / ((now - start) / 1e9), pace.asFastAsPossible ? ""
                  : String.format(Locale.ROOT, ", %.1f s behind schedule", Math.max(0, now - due) / 1e9));
          lastReport = now;
        }
      }
      producer.flush();
      Summary summary = new Summary(sent, (System.nanoTime() - start) / 1e9, maxBehind / 1e9);
      System.out.printf(Locale.ROOT, "replayed %,d changes in %.1f s (%,.0f/s), at most %.1f s behind schedule%n",
          summary.changes(), summary.seconds(), summary.rate(), summary.maxBehindSeconds());
      return summary;
    }
  }

  /** When a change is due: the trace's time scaled by the speed, a fixed rate's slot, or now. */
  private long dueNanos(long start, long traceMillis, long sent) {
    if (pace.asFastAsPossible) {
      return start;
    }
    if (pace.rate != null) {
      return start + (long) (sent / pace.rate * 1e9);
    }
    return start + (long) (traceMillis / pace.speed * 1e6);
  }
}
