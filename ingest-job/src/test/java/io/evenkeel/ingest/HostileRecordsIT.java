package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.testing.ChangeStream;
import io.evenkeel.ingest.testing.DeadLetterReasons;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.StatsRequest;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.curator.test.TestingServer;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fuzz run through Kafka: 10,000 malformed or hostile records of eleven kinds (truncated Avro, a wrong schema
 * fingerprint, random bytes, a string announcing two gigabytes, negative ids, times before 1970 and far ahead of the
 * clock, 40 kB keywords and attributes, a price beyond decimal(18, 2), a partial update of a fixed column) among
 * 20,000 valid changes. Every hostile record lands in the dead-letter topic with a reason, the job (without restarts)
 * keeps RUNNING, and every valid row is indexed.
 */
class HostileRecordsIT {
  private static final int SHARDS = 4;
  private static final int VALID = 20_000;
  private static final int HOSTILE = 10_000;
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @RegisterExtension
  static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
      .setNumberTaskManagers(1)
      .setNumberSlotsPerTaskManager(2)
      .build());

  @TempDir Path dir;
  private TestingServer zookeeper;
  private KafkaBroker kafka;
  private ShardServerProcess server;
  private IngestSettings settings;
  private JobClient job;

  @BeforeEach
  void start() throws Exception {
    zookeeper = new TestingServer(true);
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
    kafka.createTopic("changes", 2);
    server = ShardServerProcess.start(dir.resolve("shards"), "--shards", "0-3", "--refresh-interval-ms", "500",
        "--durability", "interval");
    settings = IngestSettings.parse("--bootstrap-servers", kafka.bootstrapServers(),
        "--topic", "changes",
        "--start-offsets", "earliest",
        "--zookeeper", zookeeper.getConnectString(),
        "--zookeeper-root", "/evenkeel/hostile",
        "--shards", Integer.toString(SHARDS),
        "--placement", "127.0.0.1:" + server.port() + "=0-3",
        "--effective-delay-ms", "2000",
        "--max-clock-skew-ms", "500");
  }

  @AfterEach
  void stop() throws Exception {
    if (job != null && !job.getJobStatus().get().isGloballyTerminalState()) {
      job.cancel().get(30, TimeUnit.SECONDS);
    }
    server.close();
    kafka.close();
    zookeeper.close();
  }

  /** The hostile kinds, each a function of a valid change's encoding (or the change) and a random source. */
  private static Map<String, Function<TransactionLogChange, byte[]>> kinds(Random random) {
    Map<String, Function<TransactionLogChange, byte[]>> kinds = new TreeMap<>();
    kinds.put("truncated", c -> {
      byte[] bytes = CHANGES.encode(c);
      return Arrays.copyOf(bytes, 10 + random.nextInt(bytes.length - 11));
    });
    kinds.put("wrong fingerprint", c -> {
      byte[] bytes = CHANGES.encode(c);
      bytes[2 + random.nextInt(8)] ^= (byte) (1 + random.nextInt(255));
      return bytes;
    });
    kinds.put("random bytes", c -> {
      byte[] bytes = new byte[1 + random.nextInt(200)];
      random.nextBytes(bytes);
      return bytes;
    });
    kinds.put("two-gigabyte string", c -> announceHugeNick(CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setSellerNick("nick").build())));
    kinds.put("negative id", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setTenantId(-1 - random.nextInt(1_000)).build()));
    kinds.put("before 1970", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setCreatedTime(-1 - random.nextInt(1_000_000)).build()));
    kinds.put("far ahead of the clock", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setCreatedTime(System.currentTimeMillis() + TimeUnit.DAYS.toMillis(1 + random.nextInt(300))).build()));
    kinds.put("40 kB keyword", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setBuyerNick("b".repeat(40_000)).build()));
    kinds.put("40 kB attribute", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setAttributes("color:red;note:" + "n".repeat(40_000)).build()));
    kinds.put("price beyond decimal(18, 2)", c -> widenPrice(CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setPrice(new BigDecimal("9999999999999999.99")).build())));
    kinds.put("partial update of row_id", c -> CHANGES.encode(TransactionLogChange.newBuilder(c)
        .setOp(ChangeOp.UPDATE).setSetColumns(List.of("row_id")).build()));
    return kinds;
  }

  /** The encoding with the seller nick "nick" (length 4, zig-zag 8) announcing 2^31 - 9 bytes instead. */
  private static byte[] announceHugeNick(byte[] valid) {
    byte[] nick = "nick".getBytes(StandardCharsets.UTF_8);
    int at = -1;
    for (int i = 1; i + nick.length <= valid.length; i++) {
      if (valid[i - 1] == 8 && Arrays.equals(valid, i, i + nick.length, nick, 0, nick.length)) {
        at = i - 1;
      }
    }
    byte[] length = {(byte) 0xee, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}; // zig-zag varint of 2^31 - 9
    byte[] hostile = new byte[valid.length - 1 + length.length];
    System.arraycopy(valid, 0, hostile, 0, at);
    System.arraycopy(length, 0, hostile, at, length.length);
    System.arraycopy(valid, at + 1, hostile, at + length.length, valid.length - at - 1);
    return hostile;
  }

  /**
   * Avro's encoder refuses a price of more than 18 digits, a hand-written producer need not: the largest valid price
   * (8 bytes, length prefix zig-zag 16) becomes one of 20 digits (9 bytes).
   */
  private static byte[] widenPrice(byte[] valid) {
    byte[] largest = new BigDecimal("9999999999999999.99").unscaledValue().toByteArray();
    byte[] wider = new BigDecimal("123456789012345678.00").unscaledValue().toByteArray();
    int at = -1;
    for (int i = 1; i + largest.length <= valid.length; i++) {
      if (valid[i - 1] == 2 * largest.length && Arrays.equals(valid, i, i + largest.length, largest, 0,
          largest.length)) {
        at = i - 1;
      }
    }
    byte[] hostile = new byte[valid.length + wider.length - largest.length];
    System.arraycopy(valid, 0, hostile, 0, at);
    hostile[at] = (byte) (2 * wider.length);
    System.arraycopy(wider, 0, hostile, at + 1, wider.length);
    System.arraycopy(valid, at + 1 + largest.length, hostile, at + 1 + wider.length,
        valid.length - at - 1 - largest.length);
    return hostile;
  }

  @Test
  void everyHostileRecordIsDeadLetteredAndEveryValidRowIndexed() throws Exception {
    Configuration configuration = new Configuration();
    configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
    env.setParallelism(2);
    env.enableCheckpointing(500, CheckpointingMode.EXACTLY_ONCE);
    IngestJob.build(env, settings);
    job = env.executeAsync("hostile-records");

    Random random = new Random(22);
    List<Map.Entry<String, Function<TransactionLogChange, byte[]>>> kinds = new ArrayList<>(kinds(random).entrySet());
    ChangeStream stream = new ChangeStream(11, 500, 1.0);
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    Map<String, Integer> sentByKind = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      int hostile = 0;
      for (int valid = 0; valid < VALID; valid++) {
        TransactionLogChange change = stream.next(System.currentTimeMillis(), -1, 0);
        producer.send(new ProducerRecord<>("changes", CHANGES.encode(change)));
        if (valid % 2 == 1 && hostile < HOSTILE) {
          // A hostile record built from a change the stream does not count: a fresh row of another tenant.
          TransactionLogChange template = TransactionLogChange.newBuilder(change).setTenantId(1_000_000 + hostile)
              .setRowId(hostile).setOp(ChangeOp.INSERT).setSetColumns(null).build();
          Map.Entry<String, Function<TransactionLogChange, byte[]>> kind = kinds.get(hostile % kinds.size());
          producer.send(new ProducerRecord<>("changes", kind.getValue().apply(template)));
          sentByKind.merge(kind.getKey(), 1, Integer::sum);
          hostile++;
        }
        if (valid % 2_000 == 0) {
          Thread.sleep(100);
        }
      }
    }
    System.out.println("hostile records sent, by kind: " + sentByKind);

    Map<List<Long>, TransactionLogChange> expected = stream.expectedLiveRows();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    long docs = -1;
    while (docs != expected.size()) {
      // Never failed or restarting; on a slow machine it may still be deploying its tasks.
      assertThat(job.getJobStatus().get()).as("job status").isIn(JobStatus.CREATED, JobStatus.INITIALIZING,
          JobStatus.RUNNING);
      assertThat(System.nanoTime()).as("all %d valid rows indexed (now %d)", expected.size(), docs)
          .isLessThan(deadline);
      Thread.sleep(1_000);
      docs = 0;
      for (int shard = 0; shard < SHARDS; shard++) {
        docs += server.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
      }
    }

    // Then a little longer: no more than the hostile records may arrive.
    List<String> reasons = DeadLetterReasons.read(kafka.bootstrapServers(), settings.kafka().deadLetterTopic(), HOSTILE,
        Duration.ofSeconds(60), Duration.ofSeconds(2));
    assertThat(reasons).hasSize(HOSTILE).allSatisfy(reason -> assertThat(reason).isNotBlank());
    assertThat(reasons).anySatisfy(r -> assertThat(r).contains("exceeds maximum allowed"))
        .anySatisfy(r -> assertThat(r).contains("ahead of the ingest job's clock"))
        .anySatisfy(r -> assertThat(r).contains("buyer_nick is 40000 bytes"))
        .anySatisfy(r -> assertThat(r).contains("must not be negative"))
        .anySatisfy(r -> assertThat(r).contains("has more than 16 integer digits"));
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    for (int shard = 0; shard < SHARDS; shard++) {
      assertThat(server.stub().stats(StatsRequest.newBuilder().setShard(shard).build()).getUnappliedChanges())
          .isZero();
    }
  }
}
