package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.testing.ChangeStream;
import io.evenkeel.ingest.testing.TopicRecords;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Hit;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.StatsRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest job on a Flink MiniCluster, against a real Kafka broker (the job through its SASL/PLAIN listener),
 * ZooKeeper and two shard-server processes started for each test; what the tests of the job share: the producer
 * of a skewed stream, and the check that every row ends exactly once on the shard its rules name.
 */
abstract class IngestJobHarness {
  static final int SHARDS = 8;
  static final int TENANTS = 1_000;
  static final long HOT_TENANT = 4_242;
  static final long WINDOW_MS = 1_000;
  static final long EFFECTIVE_DELAY_MS = 2_000;
  static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @RegisterExtension
  static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
      .setNumberTaskManagers(1)
      .setNumberSlotsPerTaskManager(4)
      .build());

  @TempDir Path dir;
  TestingServer zookeeper;
  KafkaBroker kafka;
  /** Starts the broker again on the same ports and directory. */
  KafkaBroker.Builder kafkaBroker;
  final List<ShardServerProcess> servers = new ArrayList<>();
  /** The job's flags so far; {@link #addFlags} adds to them. */
  private final List<String> flags = new ArrayList<>();
  /** The settings of {@link #flags}. */
  IngestSettings settings;
  final List<JobClient> jobs = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    // The shard servers start while ZooKeeper and Kafka do.
    servers.add(ShardServerProcess.launch(dir.resolve("shards-a"), "--shards", "0-3", "--refresh-interval-ms", "500",
        "--durability", "interval"));
    servers.add(ShardServerProcess.launch(dir.resolve("shards-b"), "--shards", "4-7", "--refresh-interval-ms", "500",
        "--durability", "interval"));
    zookeeper = new TestingServer(true);
    List<String> kafkaFlags = startKafka();
    kafka.createTopic("changes", 4);
    for (ShardServerProcess server : servers) {
      server.awaitReady(Duration.ofSeconds(60));
    }
    flags.addAll(kafkaFlags);
    addFlags("--topic", "changes",
        "--start-offsets", "earliest",
        "--zookeeper", zookeeper.getConnectString(),
        "--zookeeper-root", "/evenkeel/test",
        "--shards", Integer.toString(SHARDS),
        "--placement", "127.0.0.1:" + servers.get(0).port() + "=0-3,127.0.0.1:" + servers.get(1).port() + "=4-7",
        "--monitor-window-ms", Long.toString(WINDOW_MS),
        "--effective-delay-ms", Long.toString(EFFECTIVE_DELAY_MS),
        "--max-clock-skew-ms", "500",
        "--proposal-rest-ms", "60000");
  }

  /**
   * Starts the Kafka the job reads, sets {@link #kafka} to a broker the test's own clients bootstrap from, and returns
   * the job's flags to reach it: here one broker, which the job reaches only through a SASL/PLAIN listener with its
   * --kafka-config (the test's own clients use the plaintext one).
   */
  List<String> startKafka() throws Exception {
    int[] ports = FreePorts.pick(3);
    int saslPort = ports[2];
    kafkaBroker = KafkaBroker.builder(dir.resolve("kafka")).ports(ports[0], ports[1])
        .saslPlain(saslPort, "ingest", "s3cret");
    kafka = kafkaBroker.start();
    Path kafkaConfig = dir.resolve("kafka.properties");
    Files.writeString(kafkaConfig, String.join("\n", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ingest\" "
            + "password=\"s3cret\";"));
    return List.of("--bootstrap-servers", "127.0.0.1:" + saslPort, "--kafka-config", kafkaConfig.toString());
  }

  /** Stops what {@link #startKafka} started. */
  void stopKafka() throws Exception {
    kafka.close();
  }

  /** The job's flags so far. */
  List<String> flags() {
    return List.copyOf(flags);
  }

  /** Adds flags of the job, as a user types them (one given again replaces its value), and parses the settings anew. */
  void addFlags(String... more) {
    flags.addAll(List.of(more));
    settings = IngestSettings.parse(flags.toArray(String[]::new));
  }

  @AfterEach
  void stop() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    }
    for (ShardServerProcess server : servers) {
      server.close();
    }
    stopKafka();
    zookeeper.close();
  }

  JobClient submit(Configuration configuration) throws Exception {
    if (!configuration.contains(RestartStrategyOptions.RESTART_STRATEGY)) {
      configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    env.setParallelism(2);
    env.enableCheckpointing(500, CheckpointingMode.EXACTLY_ONCE);
    IngestJob.build(env, settings);
    JobClient job = env.executeAsync("ingest-test");
    jobs.add(job);
    return job;
  }

  /**
   * Produces {@code count} changes at about {@code perSecond}; from {@code hotFrom} on, {@link #HOT_TENANT} takes
   * {@code hotShare} of the inserts. Returns when the change at {@code pauseAt} has been sent, if {@code pauseAt} >= 0.
   */
  static final class Producer {
    final ChangeStream stream = new ChangeStream(7, TENANTS, 1.0);
    final KafkaProducer<byte[], byte[]> kafka;
    int sent;
    long hotSince = -1;
    /** The hot tenant's share of the inserts while it is hot. */
    double hotShare = 0.4;
    final java.util.concurrent.atomic.AtomicReference<Exception> lost =
        new java.util.concurrent.atomic.AtomicReference<>();

    Producer(String bootstrapServers) {
      Properties properties = new Properties();
      properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      kafka = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void produce(String topic, int until, int hotFrom, int perSecond) throws InterruptedException {
      long started = System.nanoTime();
      int first = sent;
      for (; sent < until; sent++) {
        long now = System.currentTimeMillis();
        if (sent == hotFrom) {
          hotSince = now;
        }
        TransactionLogChange change = stream.next(now, sent >= hotFrom ? HOT_TENANT : -1, hotShare);
        byte[] key = (change.getTenantId() + ":" + change.getRowId()).getBytes(StandardCharsets.UTF_8);
        kafka.send(new ProducerRecord<>(topic, key, CHANGES.encode(change)), (metadata, e) -> {
          if (e != null) {
            lost.compareAndSet(null, e);
          }
        });
        if (sent % 1_000 == 0) {
          long ahead = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) - (sent - first) * 1_000L / perSecond;
          if (ahead < 0) {
            Thread.sleep(-ahead);
          }
        }
      }
      kafka.flush();
      // The expected rows assume every change reached Kafka: a record the test's producer lost is its failure.
      assertThat(lost.get()).as("a change the test's producer could not write to Kafka").isNull();
    }
  }

  /** Waits (at most 2 minutes) until the job has completed a checkpoint: its tasks may take long to deploy. */
  static void awaitCheckpoint(Path jobDir) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (true) {
      try {
        latestCheckpoint(jobDir);
        return;
      } catch (AssertionError | java.io.IOException notYet) {
        assertThat(System.nanoTime()).as("a completed checkpoint in %s", jobDir).isLessThan(deadline);
        Thread.sleep(200);
      }
    }
  }

  static Path latestCheckpoint(Path jobDir) throws Exception {
    try (var children = java.nio.file.Files.list(jobDir)) {
      // A checkpoint in progress at the cancellation has a directory but no _metadata yet.
      return children.filter(p -> p.getFileName().toString().startsWith("chk-"))
          .filter(p -> java.nio.file.Files.exists(p.resolve("_metadata")))
          .max((a, b) -> Long.compare(number(a), number(b)))
          .orElseThrow(() -> new AssertionError("no retained checkpoint in " + jobDir));
    }
  }

  static long number(Path checkpoint) {
    return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
  }

  /**
   * Waits until the shards hold exactly the expected rows (as long as their count keeps moving: a slow machine gets
   * there later; at most 3 minutes without a new document, 10 minutes in all), then checks each is on exactly one
   * shard, the one its rules name, with the expected final state. Returns the rule list it checked against.
   */
  RuleList awaitIndexed(Map<List<Long>, TransactionLogChange> expected, JobClient job) throws Exception {
    return awaitIndexed(expected, () -> {
      JobStatus status = job.getJobStatus().get();
      if (status == JobStatus.FAILED) {
        try {
          job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("the job failed", e);
        }
      }
      assertThat(status).as("job status").isIn(JobStatus.INITIALIZING, JobStatus.CREATED, JobStatus.RUNNING);
    });
  }

  /** Checks that a job is still on its way (throws when it is not), between two looks at the shards. */
  interface JobCheck {
    void check() throws Exception;
  }

  /** As {@link #awaitIndexed(Map, JobClient)}, for a job that {@code job} checks. */
  RuleList awaitIndexed(Map<List<Long>, TransactionLogChange> expected, JobCheck job) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    long stalledAfter = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    long docs = -1;
    while (System.nanoTime() < Math.min(deadline, stalledAfter)) {
      job.check();
      long before = docs;
      docs = 0;
      for (int shard = 0; shard < SHARDS; shard++) {
        docs += server(shard).stub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      }
      if (docs != before) {
        stalledAfter = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      }
      if (docs == expected.size() && allVersionsArrived(expected)) {
        break;
      }
      Thread.sleep(1_000);
    }
    RuleList rules = currentRules();
    RoutingPolicy policy = settings.policy().policy(rules);
    Map<List<Long>, Integer> shardOf = new HashMap<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      for (Hit hit : allHits(shard)) {
        List<Long> key = List.of(hit.getTenantId(), hit.getRowId());
        assertThat(shardOf.put(key, shard)).as("row %s on more than one shard", key).isNull();
        TransactionLogChange row = CHANGES.decode(hit.getRow().toByteArray());
        assertThat(row).as("final state of row %s", key).isEqualTo(expected.get(key));
        assertThat(shard).as("shard of row %s", key)
            .isEqualTo(policy.shardFor(hit.getTenantId(), hit.getRowId(), row.getCreatedTime()));
      }
    }
    assertThat(shardOf.keySet()).as("rows indexed (%d docs)", docs).isEqualTo(expected.keySet());
    return rules;
  }

  boolean allVersionsArrived(Map<List<Long>, TransactionLogChange> expected) {
    long matching = 0;
    for (int shard = 0; shard < SHARDS; shard++) {
      for (Hit hit : allHits(shard)) {
        try {
          TransactionLogChange row = CHANGES.decode(hit.getRow().toByteArray());
          TransactionLogChange want = expected.get(List.of(hit.getTenantId(), hit.getRowId()));
          matching += want != null && want.getVersion() == row.getVersion() ? 1 : 0;
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    }
    return matching == expected.size();
  }

  List<Hit> allHits(int shard) {
    SearchResponse response = server(shard).stub().withDeadlineAfter(30, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setShard(shard)
            .setQuery(Query.newBuilder().setLimit(100_000).setIncludeRows(true).setTrackTotal(true)).build());
    assertThat(response.getTotal()).isLessThan(100_000);
    return response.getHitsList();
  }

  ShardServerProcess server(int shard) {
    return servers.get(shard < 4 ? 0 : 1);
  }

  RuleList currentRules() throws Exception {
    try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100))) {
      client.start();
      RuleListClient rules = new RuleListClient(client, settings.protocolConfig());
      rules.start();
      try {
        return rules.current();
      } finally {
        rules.close();
      }
    }
  }

  static final SingleObjectCodec<RuleProposal> PROPOSALS = SingleObjectCodec.of(RuleProposal.class);

  /** The records of {@code topic} from its start, decoded; waits up to 30 s for {@code atLeast} of them. */
  <T> List<T> read(String topic, int atLeast, SingleObjectCodec<T> codec) throws Exception {
    return TopicRecords.read(kafka.bootstrapServers(), topic, atLeast, Duration.ofSeconds(30), Duration.ZERO,
        record -> codec.decode(record.value()));
  }
}
