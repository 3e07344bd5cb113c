package io.evenkeel.benchmarks.ingest;

import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.ingest.IngestJob;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.StatsRequest;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.translog.Durability;
import io.evenkeel.workload.RowGenerator;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.lucene.util.IOUtils;

/**
 * End-to-end ingest: Kafka → the Flink ingest job → 3 shard servers (12 shards, gRPC on loopback), for hashing, double
 * hashing (L = 8) and dynamic secondary hashing on the same Zipf(θ) stream, then raw Lucene on the same rows.
 *
 * <p>Each policy gets fresh servers and two phases on one running job. <b>Warm-up</b>: {@code --warmup-seconds} of rows
 * produced at {@code --rate}, so that the monitor sees the skew and the dynamic policy commits its rules (rows are
 * created as they are sent: a rule applies to rows created after its effective time); its write delay is the delay
 * at that steady rate, sampled in its second half. <b>Measured</b>: {@code --rows} more rows, created and encoded
 * before the phase (after the rules are in force) and then produced as fast as the producer can; throughput is rows
 * / (first sent → all searchable), the pipeline's capacity. Write delay is measured on every 1,000th row, from its
 * send to the moment a search on the shards finds it. For the measured phase the benchmark also prints the CPU
 * seconds each part used (shard servers, Flink job, gRPC transport, producer, JIT, GC, the broker's process).
 *
 * <p>Raw Lucene indexes the measured rows with one thread into one index. The pseudo-policy {@code
 * dynamic-without-shards} runs the dynamic job with a sink that only counts: Kafka and Flink's share on their own.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.ingest.IngestPipelineBenchmark
 * [--rows N] [--warmup-seconds S] [--rate R] [--theta X] [--policies hashing,double:8,dynamic] [--job "job flags"]
 * [--jvm-warmup true|false]}. A first, unreported run warms the JVM up. Everything shares
 * this machine's cores: figures are for comparing the policies.
 */
public final class IngestPipelineBenchmark {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES = SingleObjectCodec.of(TransactionLogChange.class);
  private static final int SHARDS = 12;
  private static final int SERVERS = 3;
  private static final int TENANTS = 10_000;

  /** The pseudo-policy that runs the dynamic job up to the shard sink and only counts what it would send. */
  private static final String NO_SINK = "dynamic-without-shards";
  private static final AtomicLong COUNTED = new AtomicLong();

  private IngestPipelineBenchmark() {}

  /** Counts the changes the job would send (the job runs in this JVM): Kafka and Flink's share of the cost. */
  private static final class CountingSink implements Sink<RoutedChange> {
    @Override
    public SinkWriter<RoutedChange> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        @Override
        public void write(RoutedChange change, Context context) {
          COUNTED.incrementAndGet();
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }

  /** One policy's run: the measured phase's throughput and delays, and the warm-up's delays at the steady rate. */
  record Result(String policy, int rows, double seconds, long[] delaysMs, long[] steadyDelaysMs, int rules,
      Map<String, Double> cpuSeconds) {
    double rowsPerSecond() {
      return rows / seconds;
    }
  }

  /** "p50 / p99 ms" of sorted delays, or n/a without samples (nothing searched without shards). */
  static String delays(long[] sorted) {
    if (sorted.length == 0) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%,d / %,d ms", sorted[sorted.length / 2],
        sorted[(int) Math.min(sorted.length - 1, 0.99 * sorted.length)]);
  }

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = 1_000_000;
    int warmupSeconds = 12;
    int rate = 10_000;
    double theta = 1.0;
    List<String> policies = List.of("hashing", "double:8", "dynamic", NO_SINK);
    String[] jobFlags = {};
    boolean jvmWarmup = true;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(args[i + 1]);
        case "--rate" -> rate = Integer.parseInt(args[i + 1]);
        case "--theta" -> theta = Double.parseDouble(args[i + 1]);
        case "--policies" -> policies = List.of(args[i + 1].split(","));
        case "--job" -> jobFlags = args[i + 1].split(" ");
        case "--jvm-warmup" -> jvmWarmup = Boolean.parseBoolean(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    int warmupRows = warmupSeconds * rate;
    Path work = Files.createTempDirectory("evenkeel-e2e-bench");
    System.out.printf(Locale.ROOT, "End-to-end ingest, Zipf theta=%.1f over %,d tenants, %d shard servers, %d shards:"
        + " warm-up %,d rows at %,d rows/s, then %,d rows as fast as produced; work dir %s%n", theta, TENANTS, SERVERS,
        SHARDS, warmupRows, rate, rows, work);
    if (jvmWarmup) {
      // A cold JVM runs the first minute of this pipeline at about half speed (the JIT compiles Lucene, Flink, Avro
      // and gRPC on the same two cores): one unreported run first, so that every policy and raw Lucene run warm.
      Result r = run(work.resolve("jvm-warm-up"), "dynamic", warmupRows, rate, rows / 2, theta, jobFlags);
      System.out.printf(Locale.ROOT, "  JVM warm-up run (dynamic, %,d rows, not reported): %,.0f rows/s%n", rows / 2,
          r.rowsPerSecond());
    }
    List<Result> results = new ArrayList<>();
    for (String policy : policies) {
      Result r = run(work.resolve(results.size() + "-" + policy.replace(':', '-')), policy, warmupRows, rate, rows, theta, jobFlags);
      results.add(r);
      System.out.printf(Locale.ROOT, "  %-9s %,8.0f rows/s  delay p50 / p99 %s (at %,d rows/s: %s)  rules %d%n",
          r.policy(), r.rowsPerSecond(), delays(r.delaysMs()), rate, delays(r.steadyDelaysMs()), r.rules());
      System.out.println("            " + CpuByPart.describe(r.cpuSeconds()));
    }
    double raw = rawLucene(work.resolve("raw"), warmupRows, rows, theta);
    System.out.printf(Locale.ROOT, "%nraw Lucene, 1 thread, the measured rows: %,.0f rows/s%n%n", raw);
    System.out.printf(Locale.ROOT, "| policy | rows/s | vs raw Lucene | delay p50 / p99 (saturated) | delay p50 / p99 at"
        + " %,d rows/s | rules |%n", rate);
    System.out.println("|---|---|---|---|---|---|");
    for (Result r : results) {
      System.out.printf(Locale.ROOT, "| %s | %,.0f | %.0f%% | %s | %s | %d |%n", r.policy(), r.rowsPerSecond(),
          100 * r.rowsPerSecond() / raw, delays(r.delaysMs()), delays(r.steadyDelaysMs()), r.rules());
    }
    IOUtils.rm(work); // recursively
  }

  private static double rawLucene(Path dir, int skip, int rows, double theta) throws Exception {
    RowGenerator generator = new RowGenerator(42, TENANTS, theta);
    for (int i = 0; i < skip; i++) {
      generator.next();
    }
    var config = new org.apache.lucene.index.IndexWriterConfig(new org.apache.lucene.analysis.standard.StandardAnalyzer())
        .setRAMBufferSizeMB(64);
    long started = System.nanoTime();
    try (var writer = new org.apache.lucene.index.IndexWriter(org.apache.lucene.store.FSDirectory.open(dir), config)) {
      for (int i = 0; i < rows; i++) {
        TransactionLogChange row = generator.next();
        writer.addDocument(io.evenkeel.shard.index.RowDocuments.row(
            new io.evenkeel.shard.index.RowKey(row.getTenantId(), row.getRowId()), row, CHANGES.encode(row), i));
      }
      writer.commit();
    }
    return rows / ((System.nanoTime() - started) / 1e9);
  }

  private static Result run(Path dir, String policy, int warmupRows, int rate, int rows, double theta,
      String[] jobFlags) throws Exception {
    Files.createDirectories(dir);
    try (TestingServer zookeeper = new TestingServer(true);
        KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"))) {
      kafka.createTopic("changes", 4);
      List<ShardServer> servers = new ArrayList<>();
      StringBuilder placement = new StringBuilder();
      ClusterClient cluster = new ClusterClient();
      Map<Integer, ShardServiceGrpc.ShardServiceBlockingStub> stubOfShard = new HashMap<>();
      int perServer = SHARDS / SERVERS;
      boolean noSink = policy.equals(NO_SINK);
      for (int s = 0; s < SERVERS; s++) {
        Set<Integer> shards = new TreeSet<>();
        for (int shard = s * perServer; shard < (s + 1) * perServer; shard++) {
          shards.add(shard);
        }
        int port = 1; // never connected without the shard sink
        if (!noSink) {
          ShardServer server = new ShardServer(dir.resolve("shards-" + s), shards,
              new ShardSettings(Durability.INTERVAL, 200, 1_000, 60_000, 64), new InetSocketAddress("127.0.0.1", 0));
          port = server.start();
          servers.add(server);
          ShardServiceGrpc.ShardServiceBlockingStub stub = cluster.blockingStub(new ShardAddress("127.0.0.1", port));
          shards.forEach(shard -> stubOfShard.put(shard, stub));
        }
        placement.append(s == 0 ? "" : ",").append("127.0.0.1:").append(port).append('=')
            .append(s * perServer).append('-').append((s + 1) * perServer - 1);
      }
      // --job "--sink-linger-ms 100 ...": the job's own flags, as given to the ingest job's main; the benchmark's
      // own come after them and win.
      List<String> flags = new ArrayList<>(List.of(jobFlags));
      flags.addAll(List.of("--placement", placement.toString(),
          "--bootstrap-servers", kafka.bootstrapServers(),
          "--topic", "changes",
          "--start-offsets", "earliest",
          "--zookeeper", zookeeper.getConnectString(),
          "--shards", Integer.toString(SHARDS),
          "--policy", noSink ? "dynamic" : policy,
          "--monitor-window-ms", "2000",
          "--effective-delay-ms", "2000",
          "--max-clock-skew-ms", "500"));
      IngestSettings settings = IngestSettings.parse(flags.toArray(String[]::new));
      Configuration configuration = new Configuration(); // checkpoints on disk, as the job's main and the local stack
      configuration.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, configuration);
      env.enableCheckpointing(5_000, CheckpointingMode.EXACTLY_ONCE);
      if (noSink) {
        COUNTED.set(0);
        IngestJob.changesToSend(env, settings).sinkTo(new CountingSink()).name("count");
      } else {
        IngestJob.build(env, settings);
      }
      JobClient job = env.executeAsync("e2e-" + policy);

      RowGenerator generator = new RowGenerator(42, TENANTS, theta);
      // The warm-up's first half includes the job's start: its delays are sampled in the second half only.
      long[] steadyDelays = produceAndWait(kafka, stubOfShard, createdWhenSent(generator), warmupRows, rate,
          warmupRows / 2, warmupRows, policy);
      Supplier<Outgoing> measured = encodedAhead(generator, rows);
      CpuByPart cpu = CpuByPart.start(kafka.process().pid());
      long started = System.currentTimeMillis();
      long[] delays = produceAndWait(kafka, stubOfShard, measured, rows, 0, 0, warmupRows + rows, policy);
      double seconds = (System.currentTimeMillis() - started) / 1000.0;
      Map<String, Double> cpuSeconds = cpu.secondsByPart();
      int rules;
      try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
        client.start();
        RuleListClient list = new RuleListClient(client, settings.protocolConfig());
        list.start();
        rules = list.current().size();
        list.close();
      }
      job.cancel().get(60, TimeUnit.SECONDS);
      cluster.close();
      for (ShardServer server : servers) {
        server.close();
      }
      return new Result(policy, rows, seconds, delays, steadyDelays, rules, cpuSeconds);
    }
  }

  private static long searchableDocs(Map<Integer, ShardServiceGrpc.ShardServiceBlockingStub> stubOfShard) {
    long docs = 0;
    for (var entry : stubOfShard.entrySet()) {
      docs += entry.getValue().withDeadlineAfter(10, TimeUnit.SECONDS)
          .stats(StatsRequest.newBuilder().setShard(entry.getKey()).build()).getDocs();
    }
    return docs;
  }

  /** Searches every shard for the pending sample rows; a found row's delay is now minus its creation time. */
  private static void findSamples(Map<Integer, ShardServiceGrpc.ShardServiceBlockingStub> stubs, Map<Long, Long> samples, long now,
      List<Long> delays) {
    if (samples.isEmpty()) {
      return;
    }
    Terms.Builder ids = Terms.newBuilder().setField("row_id");
    samples.keySet().forEach(id -> ids.addValues(Value.newBuilder().setLongValue(id)));
    Query query = Query.newBuilder().setFilter(Filter.newBuilder().setTerms(ids)).setLimit(samples.size()).build();
    for (var entry : stubs.entrySet()) {
      for (Hit hit : entry.getValue().withDeadlineAfter(10, TimeUnit.SECONDS)
          .search(SearchRequest.newBuilder().setShard(entry.getKey()).setQuery(query).build()).getHitsList()) {
        Long sentAt = samples.remove(hit.getRowId());
        if (sentAt != null) {
          delays.add(now - sentAt);
        }
      }
    }
  }

  /**
   * Produces {@code count} rows (at {@code rate} rows/s, or as fast as possible with 0) and waits until the shards hold
   * {@code expectedDocs} searchable rows; returns the sorted write delays of every 1,000th row from {@code sampleFrom}.
   */
  private static long[] produceAndWait(KafkaBroker kafka, Map<Integer, ShardServiceGrpc.ShardServiceBlockingStub> stubOfShard,
      Supplier<Outgoing> rows, int count, int rate, int sampleFrom, long expectedDocs, String policy) throws Exception {
    Map<Long, Long> samples = new ConcurrentHashMap<>(); // row id → sent at
    long started = System.currentTimeMillis();
    Thread producer = new Thread(() -> produce(kafka.bootstrapServers(), rows, count, rate, sampleFrom, samples),
        "bench-producer");
    producer.start();
    List<Long> delays = new ArrayList<>();
    while (true) {
      long now = System.currentTimeMillis();
      findSamples(stubOfShard, samples, now, delays);
      long docs = stubOfShard.isEmpty() ? COUNTED.get() : searchableDocs(stubOfShard);
      if (docs >= expectedDocs && !producer.isAlive()) {
        findSamples(stubOfShard, samples, now, delays);
        return delays.stream().mapToLong(Long::longValue).sorted().toArray();
      }
      if (now - started > TimeUnit.MINUTES.toMillis(10)) {
        throw new IllegalStateException(policy + ": only " + docs + " of " + expectedDocs + " rows searchable after "
            + "10 min");
      }
      Thread.sleep(100);
    }
  }

  /** A row ready to send: its id (for delay samples) and its encoded change. */
  private record Outgoing(long rowId, byte[] bytes) {}

  /** The next row, created now: rows of the steady phase are created as they are sent. */
  private static Supplier<Outgoing> createdWhenSent(RowGenerator generator) {
    return () -> {
      long now = System.currentTimeMillis();
      TransactionLogChange row = TransactionLogChange.newBuilder(generator.next())
          .setCreatedTime(now).setModifiedTime(now).build();
      return new Outgoing(row.getRowId(), CHANGES.encode(row));
    };
  }

  /**
   * {@code count} rows created and encoded now, before they are sent: generating and encoding rows is the client's
   * work, kept out of the measured phase.
   */
  private static Supplier<Outgoing> encodedAhead(RowGenerator generator, int count) {
    Supplier<Outgoing> create = createdWhenSent(generator);
    List<Outgoing> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(create.get());
    }
    return rows.iterator()::next;
  }

  private static void produce(String bootstrapServers, Supplier<Outgoing> rows, int count, int rate, int sampleFrom,
      Map<Long, Long> samples) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-producer");
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    long started = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < count; i++) {
        Outgoing row = rows.get();
        if (i >= sampleFrom && i % 1_000 == 0) {
          samples.put(row.rowId(), System.currentTimeMillis());
        }
        producer.send(new ProducerRecord<>("changes", row.bytes()));
        if (rate > 0 && i % 1_000 == 0) {
          long ahead = (long) i * 1_000 / rate - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
          if (ahead > 0) {
            try {
              Thread.sleep(ahead);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        }
      }
    } finally {
      CpuByPart.threadEnding();
    }
  }
}
