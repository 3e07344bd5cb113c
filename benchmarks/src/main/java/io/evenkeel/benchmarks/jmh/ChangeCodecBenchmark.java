package io.evenkeel.benchmarks.jmh;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.workload.RowGenerator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one Avro single-object encode and decode of a change, the unit every hop of the ingest path pays
 * (loader, job, shard server), on the benchmarks' generated rows.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ChangeCodecBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas")
public class ChangeCodecBenchmark {
  private static final int ROWS = 4096;

  private final SingleObjectCodec<TransactionLogChange> codec = SingleObjectCodec.of(TransactionLogChange.class);
  private final TransactionLogChange[] rows = new TransactionLogChange[ROWS];
  private final byte[][] encoded = new byte[ROWS][];

  @Setup
  public void setUp() {
    RowGenerator generator = new RowGenerator(7, 500, 1.0);
    for (int i = 0; i < ROWS; i++) {
      rows[i] = generator.next();
      encoded[i] = codec.encode(rows[i]);
    }
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public void encode(Blackhole sink) {
    for (TransactionLogChange row : rows) {
      sink.consume(codec.encode(row));
    }
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public void decode(Blackhole sink) throws MalformedRecordException {
    for (byte[] bytes : encoded) {
      sink.consume(codec.decode(bytes));
    }
  }
}
