package io.evenkeel.benchmarks.shard;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.SortField;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.schemas.shard.WriteResponse;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.index.RowDocuments;
import io.evenkeel.shard.index.RowKey;
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.workload.RowGenerator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * Indexes the same rows (a) with raw Lucene in this process, one thread, the physical limit of the machine, and (b)
 * through a shard server's gRPC write path (translog with durability {@code interval}, version checks, refresh), then
 * measures tenant + time-range searches on the loaded shard.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.shard.ShardIngestBenchmark
 * [--rows N] [--batch N] [--in-flight N] [--queries N] [--warmup-rows N]}. Both paths first run once on {@code
 * --warmup-rows} rows, unreported, so that both are measured in a warm JVM.
 */
public final class ShardIngestBenchmark {
  private static final SingleObjectCodec<TransactionLogChange> ROWS = SingleObjectCodec.of(TransactionLogChange.class);
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final long SEED = 42;
  private static final int TENANTS = 10_000;
  private static final double RAM_BUFFER_MB = 256;

  private ShardIngestBenchmark() {}

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = 1_000_000;
    int batchSize = 1_000;
    int inFlight = 4;
    int queries = 2_000;
    int warmupRows = 200_000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--batch" -> batchSize = Integer.parseInt(args[i + 1]);
        case "--in-flight" -> inFlight = Integer.parseInt(args[i + 1]);
        case "--queries" -> queries = Integer.parseInt(args[i + 1]);
        case "--warmup-rows" -> warmupRows = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Path work = Files.createTempDirectory("evenkeel-ingest-bench");
    System.out.printf(Locale.ROOT, "Indexing %,d rows (Zipf tenants over %,d, ~15 columns, 10 attributes each); work dir %s%n",
        rows, TENANTS, work);
    if (warmupRows > 0) {
      // Both paths once, unreported: otherwise (a) runs in a cold JVM (the JIT compiling Lucene as it goes) and (b),
      // running second, looks better than it is.
      rawLucene(work.resolve("warm-up-raw"), warmupRows);
      ShardServer warmUp = startServer(work.resolve("warm-up-server"));
      try (ClusterClient cluster = new ClusterClient()) {
        grpcWrites(cluster.futureStub(addressOf(warmUp)), warmupRows, batchSize, inFlight);
      } finally {
        warmUp.close();
      }
      System.out.printf(Locale.ROOT, "JVM warm-up: both paths with %,d rows, not reported%n", warmupRows);
    }
    long cpu = cpuNanos();
    double raw = rawLucene(work.resolve("raw"), rows);
    double rawPerCpu = rows / ((cpuNanos() - cpu) / 1e9);
    System.out.printf(Locale.ROOT, "(a) raw Lucene, 1 thread:            %,10.0f docs/s  %,10.0f docs per CPU-second%n",
        raw, rawPerCpu);
    ShardServer server = startServer(work.resolve("server"));
    ClusterClient cluster = new ClusterClient();
    try {
      cpu = cpuNanos();
      double viaGrpc = grpcWrites(cluster.futureStub(addressOf(server)), rows, batchSize, inFlight);
      double grpcPerCpu = rows / ((cpuNanos() - cpu) / 1e9);
      System.out.printf(Locale.ROOT, "(b) shard server over gRPC:          %,10.0f docs/s  %,10.0f docs per CPU-second"
          + "  (client and server in this process; batches of %d, %d in flight, durability interval)%n", viaGrpc,
          grpcPerCpu, batchSize, inFlight);
      System.out.printf(Locale.ROOT, "ratio (b)/(a):                       %10.2f wall clock, %.2f per CPU-second%n",
          viaGrpc / raw, grpcPerCpu / rawPerCpu);
      searches(cluster.blockingStub(addressOf(server)), rows, queries);
    } finally {
      cluster.close();
      server.close();
      IOUtils.rm(work); // recursively
    }
  }

  /** A shard server in this process holding shard 0, written with durability {@code interval}. */
  private static ShardServer startServer(Path dir) throws IOException {
    ShardServer server = new ShardServer(dir, Set.of(0),
        new ShardSettings(Durability.INTERVAL, 200, 1_000, 60_000, RAM_BUFFER_MB), new InetSocketAddress("127.0.0.1", 0));
    server.start();
    return server;
  }

  private static ShardAddress addressOf(ShardServer server) {
    return new ShardAddress("127.0.0.1", server.port());
  }

  private static double rawLucene(Path path, int rows) throws IOException {
    RowGenerator generator = new RowGenerator(SEED, TENANTS, 1.0);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setRAMBufferSizeMB(RAM_BUFFER_MB);
    long started = System.nanoTime();
    try (IndexWriter writer = new IndexWriter(FSDirectory.open(path), config)) {
      for (int i = 0; i < rows; i++) {
        TransactionLogChange row = generator.next();
        writer.addDocument(RowDocuments.row(new RowKey(row.getTenantId(), row.getRowId()), row, ROWS.encode(row), i));
        progress("raw Lucene", i + 1, rows, started);
      }
      writer.commit();
    }
    return rows / seconds(started);
  }

  private static double grpcWrites(ShardServiceGrpc.ShardServiceFutureStub stub, int rows, int batchSize,
      int inFlight) throws Exception {
    RowGenerator generator = new RowGenerator(SEED, TENANTS, 1.0);
    Semaphore slots = new Semaphore(inFlight);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long started = System.nanoTime();
    for (int sent = 0, sequence = 0; sent < rows; sequence++) {
      List<TransactionLogChange> changes = new ArrayList<>(batchSize);
      for (int i = 0; i < batchSize && sent < rows; i++, sent++) {
        changes.add(generator.next());
      }
      boolean last = sent == rows;
      byte[] batch = BATCHES.encode(ShardWriteBatch.newBuilder().setShard(0).setSender("bench")
          .setBatchSequence(sequence).setSentTime(System.currentTimeMillis()).setWaitForRefresh(last)
          .setChanges(changes).build());
      slots.acquire();
      if (failure.get() != null) {
        throw new IllegalStateException("a write failed", failure.get());
      }
      Futures.addCallback(stub.withDeadlineAfter(60, TimeUnit.SECONDS)
              .write(WriteRequest.newBuilder().setShard(0).setBatch(ByteString.copyFrom(batch)).build()),
          new FutureCallback<WriteResponse>() {
            @Override
            public void onSuccess(WriteResponse response) {
              slots.release();
            }

            @Override
            public void onFailure(Throwable t) {
              failure.set(t);
              slots.release();
            }
          }, MoreExecutors.directExecutor());
      progress("gRPC writes", sent, rows, started);
    }
    slots.acquire(inFlight);
    if (failure.get() != null) {
      throw new IllegalStateException("a write failed", failure.get());
    }
    return rows / seconds(started);
  }

  private static void searches(ShardServiceGrpc.ShardServiceBlockingStub stub, int rows, int queries) {
    RowGenerator generator = new RowGenerator(SEED, TENANTS, 1.0);
    long span = rows / 10;
    long[] micros = new long[queries];
    long hits = 0;
    for (int i = 0; i < queries + 200; i++) {
      long tenant = generator.tenants().next();
      long from = RowGenerator.startTime() + (long) (Math.random() * span);
      Query query = Query.newBuilder().setLimit(10).setTrackTotal(true)
          .addSort(SortField.newBuilder().setField("created_time").setDescending(true))
          .setFilter(Filter.newBuilder().setBool(Bool.newBuilder()
              .addMust(Filter.newBuilder().setTerm(Term.newBuilder().setField("tenant_id")
                  .setValue(Value.newBuilder().setLongValue(tenant))))
              .addMust(Filter.newBuilder().setRange(Range.newBuilder().setField("created_time")
                  .setLower(Value.newBuilder().setLongValue(from)).setLowerInclusive(true)
                  .setUpper(Value.newBuilder().setLongValue(from + span / 10)).setUpperInclusive(true)))))
          .build();
      long started = System.nanoTime();
      hits += stub.withDeadlineAfter(10, TimeUnit.SECONDS)
          .search(SearchRequest.newBuilder().setShard(0).setQuery(query).build()).getTotal();
      if (i >= 200) { // the first 200 warm up
        micros[i - 200] = (System.nanoTime() - started) / 1_000;
      }
    }
    Arrays.sort(micros);
    System.out.printf(Locale.ROOT, "search, tenant + 10%%-of-time range, top 10 by created_time desc, %,d queries"
        + " (mean %.0f matches): p50 %.2f ms, p99 %.2f ms%n", queries, hits / (double) (queries + 200),
        micros[queries / 2] / 1000.0, micros[(int) (queries * 0.99)] / 1000.0);
  }

  private static void progress(String what, int done, int total, long started) {
    if (done % 100_000 == 0 || done == total) {
      System.err.printf(Locale.ROOT, "  %s: %,d / %,d rows, %,.0f rows/s%n", what, done, total, done / seconds(started));
    }
  }

  /**
   * CPU time of this process: on a shared machine, docs per CPU-second compare the two paths even when other
   * processes take cores away during one of them.
   */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
