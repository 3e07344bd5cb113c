package io.evenkeel.benchmarks.ingest;

import io.evenkeel.benchmarks.trace.RowGenerator;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.ingest.IngestJob;
import io.evenkeel.ingest.IngestSettings;
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
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.server.ShardSettings;
import io.evenkeel.shard.translog.Durability;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
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
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end ingest: Kafka → the Flink ingest job → 3 shard servers (12 shards, gRPC on loopback), for hashing, double
 * hashing (L = 8) and dynamic secondary hashing on the same Zipf(θ) stream, then raw Lucene on the same rows.
 *
 * <p>Each policy gets fresh servers. A producer writes the rows at {@code --rate} (rows created "now", so rules
 * committed during the run apply to later rows); throughput is rows / (first produced → all searchable). Write delay is
 * measured on every 1,000th row: from its creation to the moment a search on the shards finds it.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.ingest.IngestPipelineBenchmark
 * [--rows N] [--rate R] [--theta X]}. Everything shares this machine's cores: figures are for comparing the policies.
 */
public final class IngestPipelineBenchmark {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES = SingleObjectCodec.of(TransactionLogChange.class);
  private static final int SHARDS = 12;
  private static final int SERVERS = 3;
  private static final int TENANTS = 10_000;

  private IngestPipelineBenchmark() {}

  record Result(String policy, int rows, double seconds, long[] delaysMs, int rules) {
    double rowsPerSecond() {
      return rows / seconds;
    }

    long percentile(double p) {
      return delaysMs.length == 0 ? -1 : delaysMs[(int) Math.min(delaysMs.length - 1, p * delaysMs.length)];
    }
  }

  public static void main(String[] args) throws Exception {
    AvroTrust.install();
    int rows = 300_000;
    int rate = 30_000;
    double theta = 1.0;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--rate" -> rate = Integer.parseInt(args[i + 1]);
        case "--theta" -> theta = Double.parseDouble(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Path work = Files.createTempDirectory("evenkeel-e2e-bench");
    System.out.printf(Locale.ROOT, "End-to-end ingest of %,d rows (Zipf theta=%.1f over %,d tenants) produced at %,d rows/s;"
        + " %d shard servers, %d shards; work dir %s%n", rows, theta, TENANTS, rate, SERVERS, SHARDS, work);
    List<Result> results = new ArrayList<>();
    for (String policy : List.of("hashing", "double:8", "dynamic")) {
      results.add(run(work.resolve(policy.replace(':', '-')), policy, rows, rate, theta));
      Result r = results.get(results.size() - 1);
      System.out.printf(Locale.ROOT, "  %-9s %,8.0f rows/s  delay p50 %,6d ms  p99 %,6d ms  rules %d%n", r.policy(),
          r.rowsPerSecond(), r.percentile(0.5), r.percentile(0.99), r.rules());
    }
    double raw = rawLucene(work.resolve("raw"), rows, theta);
    System.out.printf(Locale.ROOT, "%nraw Lucene, 1 thread, same rows: %,.0f rows/s%n", raw);
    System.out.println("| policy | rows/s | vs raw Lucene | delay p50 | delay p99 | rules |");
    System.out.println("|---|---|---|---|---|---|");
    for (Result r : results) {
      System.out.printf(Locale.ROOT, "| %s | %,.0f | %.0f%% | %,d ms | %,d ms | %d |%n", r.policy(), r.rowsPerSecond(),
          100 * r.rowsPerSecond() / raw, r.percentile(0.5), r.percentile(0.99), r.rules());
    }
  }

  private static double rawLucene(Path dir, int rows, double theta) throws Exception {
    RowGenerator generator = new RowGenerator(42, TENANTS, theta);
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

  private static Result run(Path dir, String policy, int rows, int rate, double theta) throws Exception {
    Files.createDirectories(dir);
    try (TestingServer zookeeper = new TestingServer(true);
        KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"))) {
      kafka.createTopic("changes", 4);
      List<ShardServer> servers = new ArrayList<>();
      StringBuilder placement = new StringBuilder();
      Map<Integer, ManagedChannel> channelOfShard = new HashMap<>();
      int perServer = SHARDS / SERVERS;
      for (int s = 0; s < SERVERS; s++) {
        Set<Integer> shards = new TreeSet<>();
        for (int shard = s * perServer; shard < (s + 1) * perServer; shard++) {
          shards.add(shard);
        }
        ShardServer server = new ShardServer(dir.resolve("shards-" + s), shards,
            new ShardSettings(Durability.INTERVAL, 200, 1_000, 60_000, 64), new InetSocketAddress("127.0.0.1", 0));
        int port = server.start();
        servers.add(server);
        placement.append(s == 0 ? "" : ",").append("127.0.0.1:").append(port).append('=')
            .append(s * perServer).append('-').append((s + 1) * perServer - 1);
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port,
            InsecureChannelCredentials.create()).maxInboundMessageSize(64 * 1024 * 1024).build();
        shards.forEach(shard -> channelOfShard.put(shard, channel));
      }
      IngestSettings settings = new IngestSettings();
      settings.bootstrapServers = kafka.bootstrapServers();
      settings.topic = "changes";
      settings.startOffsets = "earliest";
      settings.zookeeper = zookeeper.getConnectString();
      settings.numShards = SHARDS;
      settings.placement = placement.toString();
      settings.policy = policy;
      settings.monitorWindowMs = 2_000;
      settings.effectiveDelayMs = 2_000;
      settings.maxClockSkewMs = 500;
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2);
      env.enableCheckpointing(5_000, CheckpointingMode.EXACTLY_ONCE);
      IngestJob.build(env, settings);
      JobClient job = env.executeAsync("e2e-" + policy);

      Map<Long, long[]> samples = new ConcurrentHashMap<>(); // row id → {tenant, created}
      long started = System.currentTimeMillis();
      Thread producer = new Thread(() -> produce(kafka.bootstrapServers(), rows, rate, theta, samples));
      producer.start();
      List<Long> delays = new ArrayList<>();
      while (true) {
        long now = System.currentTimeMillis();
        findSamples(channelOfShard, samples, now, delays);
        long docs = 0;
        for (var entry : channelOfShard.entrySet()) {
          docs += ShardServiceGrpc.newBlockingStub(entry.getValue()).withDeadlineAfter(10, TimeUnit.SECONDS)
              .stats(StatsRequest.newBuilder().setShard(entry.getKey()).build()).getDocs();
        }
        if (docs >= rows && !producer.isAlive()) {
          break;
        }
        if (now - started > TimeUnit.MINUTES.toMillis(10)) {
          throw new IllegalStateException(policy + ": only " + docs + " of " + rows + " rows searchable after 10 min");
        }
        Thread.sleep(50);
      }
      double seconds = (System.currentTimeMillis() - started) / 1000.0;
      int rules;
      try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
        client.start();
        RuleListClient list = new RuleListClient(client, settings.protocolConfig());
        list.start();
        rules = list.current().size();
        list.close();
      }
      job.cancel().get(60, TimeUnit.SECONDS);
      channelOfShard.values().stream().distinct().forEach(ManagedChannel::shutdownNow);
      for (ShardServer server : servers) {
        server.close();
      }
      long[] sorted = delays.stream().mapToLong(Long::longValue).sorted().toArray();
      return new Result(policy, rows, seconds, sorted, rules);
    }
  }

  /** Searches every shard for the pending sample rows; a found row's delay is now minus its creation time. */
  private static void findSamples(Map<Integer, ManagedChannel> channels, Map<Long, long[]> samples, long now,
      List<Long> delays) {
    if (samples.isEmpty()) {
      return;
    }
    Terms.Builder ids = Terms.newBuilder().setField("row_id");
    samples.keySet().forEach(id -> ids.addValues(Value.newBuilder().setLongValue(id)));
    Query query = Query.newBuilder().setFilter(Filter.newBuilder().setTerms(ids)).setLimit(samples.size()).build();
    for (var entry : channels.entrySet()) {
      for (Hit hit : ShardServiceGrpc.newBlockingStub(entry.getValue()).withDeadlineAfter(10, TimeUnit.SECONDS)
          .search(SearchRequest.newBuilder().setShard(entry.getKey()).setQuery(query).build()).getHitsList()) {
        long[] sample = samples.remove(hit.getRowId());
        if (sample != null) {
          delays.add(now - sample[1]);
        }
      }
    }
  }

  private static void produce(String bootstrapServers, int rows, int rate, double theta, Map<Long, long[]> samples) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    RowGenerator generator = new RowGenerator(42, TENANTS, theta);
    long started = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < rows; i++) {
        long now = System.currentTimeMillis();
        TransactionLogChange row = TransactionLogChange.newBuilder(generator.next())
            .setCreatedTime(now).setModifiedTime(now).build();
        if (i % 1_000 == 0) {
          samples.put(row.getRowId(), new long[] {row.getTenantId(), now});
        }
        producer.send(new ProducerRecord<>("changes", CHANGES.encode(row)));
        if (i % 1_000 == 0) {
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
    }
  }

}
