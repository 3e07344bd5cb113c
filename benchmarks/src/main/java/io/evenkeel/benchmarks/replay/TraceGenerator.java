package io.evenkeel.benchmarks.replay;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.workload.SinglesDayTrace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Writes Single's-Day traces to files: Avro container files of {@code TransactionLogChange}s ({@link
 * SinglesDayTrace}'s inserts and updates) whose times are milliseconds from the trace's start and whose row ids count
 * from 0, with the {@link TraceSpec} in the file's metadata; a {@link TraceReplayer} moves both to the replay's time.
 */
@Command(name = "trace-generator", mixinStandardHelpOptions = true,
    description = "Writes Single's-Day traces (one file per theta) for the trace replayer and the experiments.")
public final class TraceGenerator implements Callable<Integer> {
  @Option(names = "--out", defaultValue = "traces", description = "The directory the traces go to.")
  Path out;

  @Option(names = "--seconds", defaultValue = "120", description = "How long a trace lasts at its own pace.")
  double seconds;

  @Option(names = "--rate", defaultValue = "10000", description = "Changes a second after the surge.")
  double rate;

  @Option(names = "--surge-factor", defaultValue = "4", description = "Rate multiplier during the kickoff surge.")
  double surgeFactor;

  @Option(names = "--surge-seconds", defaultValue = "10")
  double surgeSeconds;

  @Option(names = "--theta", split = ",", defaultValue = "0,0.5,1,1.5,2",
      description = "Zipf skew of the tenants' shares; a trace for each (default: ${DEFAULT-VALUE}).")
  List<Double> thetas;

  @Option(names = "--tenants", defaultValue = "10000")
  int tenants;

  @Option(names = "--update-share", defaultValue = "0.3", description = "Fraction of changes updating a recent row.")
  double updateShare;

  @Option(names = "--hotspot-moves", split = ",", defaultValue = "40,80",
      description = "Seconds into the trace at which a new group of tenants turns hot (default: ${DEFAULT-VALUE}).")
  double[] hotspotMoves;

  @Option(names = "--seed", defaultValue = "11")
  long seed;

  public static void main(String[] args) {
    AvroTrust.install();
    System.exit(new CommandLine(new TraceGenerator()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(out);
    for (double theta : thetas) {
      TraceSpec spec = new TraceSpec(seconds, rate, surgeFactor, surgeSeconds, theta, tenants, updateShare,
          hotspotMoves, seed);
      Path file = out.resolve(String.format(Locale.ROOT, "singles-day-theta-%.1f.avro", theta));
      long started = System.nanoTime();
      long changes = write(spec, file, progress -> System.out.printf(Locale.ROOT, "\r%s: %3.0f%%", file, 100 * progress));
      System.out.printf(Locale.ROOT, "\r%s: %,d changes, %,d bytes (%.1f s): %s%n", file, changes, Files.size(file),
          (System.nanoTime() - started) / 1e9, spec);
    }
    return 0;
  }

  /** Reports how far a trace is written, from 0 to 1. */
  public interface Progress {
    void at(double fraction);
  }

  /** Writes the trace of {@code spec} to {@code file}; returns how many changes it holds. */
  public static long write(TraceSpec spec, Path file, Progress progress) throws IOException {
    SinglesDayTrace trace = new SinglesDayTrace(spec.seed(), spec.tenants(), spec.theta(), spec.updateShare(), 0);
    try (DataFileWriter<TransactionLogChange> writer =
        new DataFileWriter<>(new SpecificDatumWriter<>(TransactionLogChange.class))) {
      writer.setCodec(CodecFactory.deflateCodec(6));
      spec.toMetadata().forEach(writer::setMeta);
      writer.create(TransactionLogChange.getClassSchema(), file.toFile());
      long changes = 0;
      int moved = 0;
      double reported = 0;
      // Change i at time t_i; the next one 1/rate(t_i) later: the surge, then the steady rate.
      for (double millis = 0; millis < spec.seconds() * 1000; millis += 1000 / spec.rateAt(millis / 1000)) {
        while (moved < spec.hotspotMoves().length && spec.hotspotMoves()[moved] * 1000 <= millis) {
          trace.moveHotspot();
          moved++;
        }
        writer.append(trace.next((long) millis));
        changes++;
        if (millis / (spec.seconds() * 1000) - reported >= 0.1) {
          reported = millis / (spec.seconds() * 1000);
          progress.at(reported);
        }
      }
      progress.at(1);
      return changes;
    }
  }
}
