package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.testing.ChangeStream;
import io.evenkeel.ingest.testing.DeadLetterReasons;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.router.rules.ShardTable;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ProposalOutcome;
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
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The ingest job on a Flink MiniCluster, against a real Kafka broker, ZooKeeper and shard-server processes. */
class IngestJobIT {
  private static final int SHARDS = 8;
  private static final int TENANTS = 1_000;
  private static final long HOT_TENANT = 4_242;
  private static final long WINDOW_MS = 1_000;
  private static final long EFFECTIVE_DELAY_MS = 2_000;
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @RegisterExtension
  static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
      .setNumberTaskManagers(1)
      .setNumberSlotsPerTaskManager(4)
      .build());

  @TempDir Path dir;
  private TestingServer zookeeper;
  private KafkaBroker kafka;
  /** Starts the broker again on the same ports and directory. */
  private KafkaBroker.Builder kafkaBroker;
  private final List<ShardServerProcess> servers = new ArrayList<>();
  private IngestSettings settings;
  private final List<JobClient> jobs = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    // The shard servers start while ZooKeeper and Kafka do.
    servers.add(ShardServerProcess.launch(dir.resolve("shards-a"), "--shards", "0-3", "--refresh-interval-ms", "500",
        "--durability", "interval"));
    servers.add(ShardServerProcess.launch(dir.resolve("shards-b"), "--shards", "4-7", "--refresh-interval-ms", "500",
        "--durability", "interval"));
    zookeeper = new TestingServer(true);
    // The job reaches Kafka only through a SASL/PLAIN listener, with its --kafka-config; the test's own clients
    // use the plaintext one.
    int saslPort = KafkaBroker.freePort();
    kafkaBroker = KafkaBroker.builder(dir.resolve("kafka")).ports(KafkaBroker.freePort(), KafkaBroker.freePort())
        .saslPlain(saslPort, "ingest", "s3cret");
    kafka = kafkaBroker.start();
    kafka.createTopic("changes", 4);
    Path kafkaConfig = dir.resolve("kafka.properties");
    Files.writeString(kafkaConfig, String.join("\n", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ingest\" "
            + "password=\"s3cret\";"));
    for (ShardServerProcess server : servers) {
      server.awaitReady(Duration.ofSeconds(60));
    }
    settings = new IngestSettings();
    settings.bootstrapServers = "127.0.0.1:" + saslPort;
    settings.kafkaConfig = kafkaConfig.toString();
    settings.topic = "changes";
    settings.startOffsets = "earliest";
    settings.zookeeper = zookeeper.getConnectString();
    settings.zookeeperRoot = "/evenkeel/test";
    settings.numShards = SHARDS;
    settings.placement = "127.0.0.1:" + servers.get(0).port() + "=0-3,127.0.0.1:" + servers.get(1).port() + "=4-7";
    settings.monitorWindowMs = WINDOW_MS;
    settings.effectiveDelayMs = EFFECTIVE_DELAY_MS;
    settings.maxClockSkewMs = 500;
    settings.proposalRestMs = 60_000;
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
    kafka.close();
    zookeeper.close();
  }

  private JobClient submit(Configuration configuration) throws Exception {
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
  private static final class Producer {
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

  @Test
  void everyRowEndsOnTheShardItsRulesNameAndAHotTenantGetsARuleInTime() throws Exception {
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    // Corrupt records among the changes: they go to the dead-letter topic, and the job (with no restarts) lives on.
    producer.kafka.send(new ProducerRecord<>("changes", "junk".getBytes(), "not avro".getBytes()));
    producer.produce("changes", 100_000, Integer.MAX_VALUE, 15_000);
    producer.kafka.send(new ProducerRecord<>("changes", "junk".getBytes(), new byte[] {(byte) 0xC3, 1, 2}));
    producer.produce("changes", 200_000, 100_000, 15_000);
    producer.kafka.close();

    RuleList rules = awaitIndexed(producer.stream.expectedLiveRows(), job);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

    Rule hotRule = rules.rules().stream().filter(r -> r.names(HOT_TENANT)).findFirst().orElseThrow(
        () -> new AssertionError("no rule for the tenant that became hot; rules: " + rules.rules()));
    assertThat(hotRule.offsetSize()).isGreaterThan(1);
    RuleProposal proposal = read(settings.proposalTopic, 1, PROPOSALS).stream()
        .filter(p -> p.getTenantId() == HOT_TENANT).findFirst().orElseThrow();
    assertThat(proposal.getOutcome()).isEqualTo(ProposalOutcome.COMMITTED);
    assertThat(proposal.getEffectiveTime()).isEqualTo(hotRule.effectiveTime());
    // Hot in two windows in a row; the first of them may have begun before the tenant became hot.
    assertThat(proposal.getWindowEnd() - producer.hotSince).as("event-time ms from becoming hot to the proposal")
        .isLessThanOrEqualTo(3 * WINDOW_MS);
    System.out.printf("hot tenant %d: proposed L=%d from the window ending %d ms after it became hot; committed,"
            + " effective %d ms after it became hot%n", HOT_TENANT, proposal.getProposedOffsetSize(),
        proposal.getWindowEnd() - producer.hotSince, hotRule.effectiveTime() - producer.hotSince);

    List<String> reasons = DeadLetterReasons.read(kafka.bootstrapServers(), settings.deadLetterTopic, 2,
        Duration.ofSeconds(30), Duration.ZERO);
    assertThat(reasons).hasSize(2);
    assertThat(reasons.get(0)).contains("BadHeaderException");
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  @Test
  void aHotTenantThatCoolsIsNarrowedAgainAndItsNewRowsLandOnFewerShards() throws Exception {
    settings.proposalRestMs = 2_000;
    settings.coolDownMs = 3_000;
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    // Hot for 4 s, then a trickle (0.5% of the inserts) for 16 s.
    producer.produce("changes", 60_000, 0, 15_000);
    long cooledAt = System.currentTimeMillis();
    producer.hotShare = 0.005;
    producer.produce("changes", 300_000, 0, 15_000);
    producer.kafka.close();

    RuleList rules = awaitIndexed(producer.stream.expectedLiveRows(), job);
    List<Rule> hot = rules.rules().stream().filter(r -> r.names(HOT_TENANT)).toList();
    assertThat(hot).as("the hot tenant's rules; all: %s", rules.rules()).hasSizeGreaterThanOrEqualTo(2);
    Rule widened = hot.get(0);
    assertThat(widened.coolDown()).isFalse();
    assertThat(widened.offsetSize()).isEqualTo(SHARDS);
    // The updates of its recent rows fade over a second or so: a window of them may narrow it to 2 or 4 first.
    for (int i = 1; i < hot.size(); i++) {
      assertThat(hot.get(i).coolDown()).as("rule %d of %s", i, hot).isTrue();
      assertThat(hot.get(i).offsetSize()).as("rule %d of %s", i, hot).isLessThan(hot.get(i - 1).offsetSize());
    }
    Rule narrowed = hot.get(hot.size() - 1);
    assertThat(narrowed.offsetSize()).isEqualTo(1);
    RoutingPolicy policy = settings.policySpec().policy(rules);
    assertThat(policy.shardsFor(HOT_TENANT).size()).as("shards of all its rows").isEqualTo(SHARDS);
    assertThat(policy.shardsFor(HOT_TENANT, narrowed.effectiveTime(), Long.MAX_VALUE).size())
        .as("shards a query of its rows created since the cool-down visits").isEqualTo(1);
    // awaitIndexed found every row on the shard its rules name: those created since the cool-down on one.
    List<TransactionLogChange> since = producer.stream.expectedLiveRows().values().stream()
        .filter(r -> r.getTenantId() == HOT_TENANT && r.getCreatedTime() >= narrowed.effectiveTime()).toList();
    assertThat(since).as("its rows created since the cool-down").isNotEmpty();
    assertThat(since.stream().map(r -> policy.shardFor(HOT_TENANT, r.getRowId(), r.getCreatedTime())).distinct())
        .hasSize(1);
    List<RuleProposal> coolDowns = read(settings.proposalTopic, rules.size(), PROPOSALS).stream()
        .filter(p -> p.getTenantId() == HOT_TENANT && p.getCoolDown()).toList();
    assertThat(coolDowns).extracting(RuleProposal::getOutcome).contains(ProposalOutcome.COMMITTED);
    System.out.printf("hot tenant %d: widened to L=%d effective %d ms after it became hot, then %s, the last"
            + " effective %d ms after it cooled; %d rows since (%s)%n", HOT_TENANT, widened.offsetSize(),
        widened.effectiveTime() - producer.hotSince, hot.subList(1, hot.size()), narrowed.effectiveTime() - cooledAt,
        since.size(), coolDowns.get(coolDowns.size() - 1).getReason());
  }

  @Test
  void underLogStoresRoutingAHotTenantGetsAMaxFlowTableAndEveryRowEndsWhereItsTableSends() throws Exception {
    settings.policy = "logstore";
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    // Long enough for two plans: the Zipf skew's first, then, once its tables are in force (their effective time,
    // in event time, reached by the windows), the hot tenant's.
    producer.produce("changes", 40_000, Integer.MAX_VALUE, 15_000);
    producer.produce("changes", 240_000, 40_000, 15_000);
    producer.kafka.close();

    RuleList rules = awaitIndexed(producer.stream.expectedLiveRows(), job);
    ShardTable table = rules.tableFor(HOT_TENANT, Long.MAX_VALUE);
    assertThat(table).as("the hot tenant's table; rules: %s", rules.rules()).isNotNull();
    // 40% of the writes where a shard's capacity is 15% (the mean of 8 shards, +20%): at least 3 shards.
    assertThat(table.size()).isGreaterThanOrEqualTo(3);
    RuleProposal proposal = read(settings.proposalTopic, 1, PROPOSALS).stream()
        .filter(p -> p.getTenantId() == HOT_TENANT && p.getOutcome() == ProposalOutcome.COMMITTED).findFirst()
        .orElseThrow();
    assertThat(proposal.getProposedTable()).isNotNull();
    assertThat(rules.maxOffsetSizeBetween(101, Long.MIN_VALUE, Long.MAX_VALUE)).as("a small tenant's L").isEqualTo(1);
    System.out.printf("logstore: hot tenant %d's table %s, from the window ending %d ms after it became hot%n",
        HOT_TENANT, table, proposal.getWindowEnd() - producer.hotSince);
  }

  @Test
  void aCancelledJobRestoredFromItsCheckpointEndsWithTheSameIndex() throws Exception {
    settings.policy = "double:4";
    Producer producer = new Producer(kafka.bootstrapServers());
    Configuration configuration = new Configuration();
    configuration.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
    configuration.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        org.apache.flink.configuration.ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    JobClient first = submit(configuration);
    producer.produce("changes", 60_000, Integer.MAX_VALUE, 20_000);
    awaitCheckpoint(dir.resolve("checkpoints").resolve(first.getJobID().toString()));
    first.cancel().get(30, TimeUnit.SECONDS);
    producer.produce("changes", 120_000, Integer.MAX_VALUE, 20_000);
    producer.kafka.close();

    Path checkpoint = latestCheckpoint(dir.resolve("checkpoints").resolve(first.getJobID().toString()));
    Configuration restore = new Configuration(configuration);
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
    JobClient second = submit(restore);
    awaitIndexed(producer.stream.expectedLiveRows(), second);
    second.cancel().get(30, TimeUnit.SECONDS);
  }

  /**
   * ZooKeeper stopped for 45 s in the middle of a stream, while a tenant turns hot: the routers stop routing and wait
   * and the hot tenant's proposal times out as aborted (the job neither fails nor restarts; checkpoints that cannot
   * pass the wait expire), and once ZooKeeper is back every row arrives.
   */
  @Test
  void aZooKeeperOutageDuringIngestStopsNothingForGood() throws Exception {
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    producer.produce("changes", 30_000, Integer.MAX_VALUE, 15_000);
    zookeeper.stop();
    long stopped = System.nanoTime();
    // A tenant turns hot during the outage: its proposal cannot reach ZooKeeper and must not block or fail the job.
    producer.produce("changes", 60_000, 30_000, 15_000);
    producer.kafka.flush();
    // Far longer than 3T (the rule protocol's wait) and shorter than the ZooKeeper session.
    while (System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(25)) {
      assertThat(job.getJobStatus().get()).as("job status during the outage").isEqualTo(JobStatus.RUNNING);
      Thread.sleep(1_000);
    }
    zookeeper.restart();
    long restarted = System.nanoTime();
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("ZooKeeper outage of 25 s: every row indexed %d ms after it came back%n",
        (System.nanoTime() - restarted) / 1_000_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * A crash, not a cancel: the task manager running the job dies mid-stream (a tenant turning hot meanwhile); Flink
   * restarts the job from its last checkpoint on a new task manager, and the index ends as a run without the crash.
   */
  @Test
  void aCrashedJobRestartsFromItsCheckpointWithTheSameIndex(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
    Configuration configuration = new Configuration();
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(configuration);
    producer.produce("changes", 60_000, 30_000, 20_000);
    miniCluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
    long crashed = System.nanoTime();
    miniCluster.startTaskManager();
    producer.produce("changes", 120_000, 30_000, 20_000);
    producer.kafka.close();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (job.getJobStatus().get() != JobStatus.RUNNING) {
      assertThat(System.nanoTime()).as("job running again after the crash").isLessThan(deadline);
      Thread.sleep(200);
    }
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("crash of the task manager: every row indexed %d ms after it%n",
        (System.nanoTime() - crashed) / 1_000_000);
  }

  /**
   * One shard server paused (SIGSTOP) for a minute under load, its lanes bounded at 500 changes so that its backlog
   * (some 2,500 changes per lane) outgrows them, and the task manager crashed in the middle of it: the paused shards' changes wait on disk
   * (their lanes spill) while the other server's rows keep becoming searchable within seconds, Flink restores the
   * job from a checkpoint that names the spill files, and after SIGCONT every row is there exactly once within a
   * minute. {@code -Devenkeel.test.pauseSeconds=300} runs it with a five-minute pause.
   */
  @Test
  void aPausedShardServerDelaysOnlyTheWritesToIt(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
    settings.sinkBatchSize = 250;
    settings.sinkLaneBuffer = 500;
    settings.sinkHotBuffer = 250;
    settings.sinkSpillAfterMs = 1_000;
    settings.sinkSpillDir = dir.resolve("spill").toString();
    long pauseNanos = TimeUnit.SECONDS.toNanos(Long.getLong("evenkeel.test.pauseSeconds", 60));
    Configuration configuration = new Configuration();
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(configuration);
    producer.produce("changes", 20_000, Integer.MAX_VALUE, 10_000);
    servers.get(1).pause();
    long paused = System.nanoTime();
    try {
      // At a rate the job keeps up with on two cores: what is measured is the paused server's effect, not a backlog.
      producer.produce("changes", 40_000, Integer.MAX_VALUE, 5_000);
      awaitRowsOfTheRunningServer(producer, paused, pauseNanos);
      try (Stream<Path> files = Files.walk(dir.resolve("spill"))) {
        assertThat(files.filter(Files::isRegularFile).count()).as("spill files of the paused shards").isPositive();
      }
      miniCluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
      miniCluster.startTaskManager();
      producer.produce("changes", 60_000, Integer.MAX_VALUE, 5_000);
      awaitRowsOfTheRunningServer(producer, paused, pauseNanos);
      while (System.nanoTime() - paused < pauseNanos) {
        assertThat(job.getJobStatus().get()).as("job status while a server is paused").isEqualTo(JobStatus.RUNNING);
        Thread.sleep(1_000);
      }
    } finally {
      servers.get(1).resume();
    }
    long resumed = System.nanoTime();
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    long caughtUp = (System.nanoTime() - resumed) / 1_000_000;
    System.out.printf("paused server: every row indexed %d ms after SIGCONT%n", caughtUp);
    assertThat(caughtUp).as("ms from SIGCONT until the paused shards' rows were searchable").isLessThan(60_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * Waits until every row produced so far that belongs on the running server (shards 0-3) is searchable there, which
   * must happen while the other is still paused.
   */
  private void awaitRowsOfTheRunningServer(Producer producer, long paused, long pauseNanos) throws Exception {
    long produced = System.nanoTime();
    RoutingPolicy policy = RoutingPolicy.dynamic(currentRules());
    long onRunningServer = producer.stream.expectedLiveRows().values().stream()
        .filter(row -> policy.shardFor(row.getTenantId(), row.getRowId(), row.getCreatedTime()) < 4).count();
    long docs = -1;
    while (docs != onRunningServer) {
      // Within the pause, however slow the machine: how soon is printed below, not asserted.
      assertThat(System.nanoTime() - paused).as("rows of shards 0-3 searchable while shards 4-7 are paused "
          + "(%d of %d)", docs, onRunningServer).isLessThan(pauseNanos - TimeUnit.SECONDS.toNanos(5));
      Thread.sleep(100);
      docs = 0;
      for (int shard = 0; shard < 4; shard++) {
        docs += servers.get(0).stub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      }
    }
    System.out.printf("paused server: the other server's %,d rows searchable %d ms after the last was produced%n",
        onRunningServer, (System.nanoTime() - produced) / 1_000_000);
  }

  /** The Kafka broker restarted in the middle of a stream: the job rides it out, and every row arrives once. */
  @Test
  void aKafkaBrokerRestartDuringIngestLosesNothing() throws Exception {
    Producer producer = new Producer(kafka.bootstrapServers());
    JobClient job = submit(new Configuration());
    producer.produce("changes", 30_000, Integer.MAX_VALUE, 15_000);
    producer.kafka.flush();
    kafka.close();
    Thread.sleep(10_000);
    assertThat(job.getJobStatus().get()).as("job status with the broker down").isEqualTo(JobStatus.RUNNING);
    kafka = kafkaBroker.start();
    long restarted = System.nanoTime();
    producer.produce("changes", 60_000, Integer.MAX_VALUE, 15_000);
    producer.kafka.close();
    awaitIndexed(producer.stream.expectedLiveRows(), job);
    System.out.printf("Kafka broker restart: every row indexed %d ms after it came back%n",
        (System.nanoTime() - restarted) / 1_000_000);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  @Test
  void aJobStartingOnALoadedClusterProposesRulesFromStorageShares() throws Exception {
    // Rows already stored (written straight to the shards, all at L = 1): tenant 7 holds 60% of them.
    RoutingPolicy hashing = RoutingPolicy.hashing(SHARDS);
    Map<Integer, List<TransactionLogChange>> byShard = new HashMap<>();
    for (long row = 0; row < 5_000; row++) {
      long tenant = row % 5 < 3 ? 7 : 100 + row % 400;
      TransactionLogChange change = TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(tenant)
          .setRowId(row).setCreatedTime(1_000 + row).setModifiedTime(1_000 + row).setVersion(1).build();
      byShard.computeIfAbsent(hashing.shardFor(change), s -> new ArrayList<>()).add(change);
    }
    byShard.forEach((shard, changes) -> server(shard).write(shard, changes, true));

    submit(new Configuration());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    RuleList rules = currentRules();
    while (rules.size() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(500);
      rules = currentRules();
    }
    assertThat(rules.maxOffsetSize(7)).as("L of the tenant with 60%% of the rows").isEqualTo(SHARDS);
    assertThat(rules.maxOffsetSize(101)).isEqualTo(1);
  }

  /** Waits (at most 2 minutes) until the job has completed a checkpoint: its tasks may take long to deploy. */
  private static void awaitCheckpoint(Path jobDir) throws Exception {
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

  private static Path latestCheckpoint(Path jobDir) throws Exception {
    try (var children = java.nio.file.Files.list(jobDir)) {
      // A checkpoint in progress at the cancellation has a directory but no _metadata yet.
      return children.filter(p -> p.getFileName().toString().startsWith("chk-"))
          .filter(p -> java.nio.file.Files.exists(p.resolve("_metadata")))
          .max((a, b) -> Long.compare(number(a), number(b)))
          .orElseThrow(() -> new AssertionError("no retained checkpoint in " + jobDir));
    }
  }

  private static long number(Path checkpoint) {
    return Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
  }

  /**
   * Waits until the shards hold exactly the expected rows (as long as their count keeps moving: a slow machine gets
   * there later; at most 3 minutes without a new document, 10 minutes in all), then checks each is on exactly one
   * shard, the one its rules name, with the expected final state. Returns the rule list it checked against.
   */
  private RuleList awaitIndexed(Map<List<Long>, TransactionLogChange> expected, JobClient job) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    long stalledAfter = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    long docs = -1;
    while (System.nanoTime() < Math.min(deadline, stalledAfter)) {
      JobStatus status = job.getJobStatus().get();
      if (status == JobStatus.FAILED) {
        try {
          job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("the job failed", e);
        }
      }
      assertThat(status).as("job status").isIn(JobStatus.INITIALIZING, JobStatus.CREATED, JobStatus.RUNNING);
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
    RoutingPolicy policy = settings.policySpec().policy(rules);
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

  private boolean allVersionsArrived(Map<List<Long>, TransactionLogChange> expected) {
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

  private List<Hit> allHits(int shard) {
    SearchResponse response = server(shard).stub().withDeadlineAfter(30, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setShard(shard)
            .setQuery(Query.newBuilder().setLimit(100_000).setIncludeRows(true).setTrackTotal(true)).build());
    assertThat(response.getTotal()).isLessThan(100_000);
    return response.getHitsList();
  }

  private ShardServerProcess server(int shard) {
    return servers.get(shard < 4 ? 0 : 1);
  }

  private RuleList currentRules() throws Exception {
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

  private static final SingleObjectCodec<RuleProposal> PROPOSALS = SingleObjectCodec.of(RuleProposal.class);

  private <T> List<T> read(String topic, int atLeast, SingleObjectCodec<T> codec) throws Exception {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "check-" + topic);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<T> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (records.size() < atLeast && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          records.add(codec.decode(record.value()));
        }
      }
    }
    return records;
  }
}
