package io.evenkeel.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.embedded.JavaCommand;
import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.ingest.testing.ChangeStream;
import io.evenkeel.ingest.testing.DeadLetterReasons;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.StatsRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code kill -9} of the ingest job's process while Kafka has not taken a dead letter: the dead-letter topic takes
 * no record of more than 10 bytes, so the letter is refused (the job fails and restarts from its checkpoint, which
 * comes before the letter, again and again); the job's process is killed, the topic fixed, and the job started again
 * as the local stack starts it, from its written offsets. The dead letter is then in Kafka with its reason, and every
 * valid row, before and after it, is searchable: the offsets behind a dead letter never count as written before
 * Kafka has the letter.
 */
class DeadLetterCrashIT {
  private static final int SHARDS = 4;
  private static final String DEAD_LETTERS = "dead-letters";
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @TempDir Path dir;
  private TestingServer zookeeper;
  private KafkaBroker kafka;
  private ShardServerProcess server;
  private final List<ChildProcess> jobs = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = ShardServerProcess.launch(dir.resolve("shards"), "--shards", "0-3", "--refresh-interval-ms", "500",
        "--durability", "interval");
    zookeeper = new TestingServer(true);
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
    kafka.createTopic("changes", 1);
    try (Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic(DEAD_LETTERS, 1, (short) 1)
          .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "10")))).all().get(30, TimeUnit.SECONDS);
    }
    server.awaitReady(Duration.ofSeconds(60));
  }

  @AfterEach
  void stop() throws Exception {
    for (ChildProcess job : jobs) {
      job.close();
    }
    server.close();
    kafka.close();
    zookeeper.close();
  }

  private ChildProcess startJob() throws Exception {
    ChildProcess job = JavaCommand.mainClass(IngestJobMain.class.getName())
        .classpath(System.getProperty("java.class.path")).heap("512m")
        .args("--local", "--web-ui-port", Integer.toString(FreePorts.one()),
            "--bootstrap-servers", kafka.bootstrapServers(), "--topic", "changes",
            "--dead-letter-topic", DEAD_LETTERS, "--zookeeper", zookeeper.getConnectString(),
            "--zookeeper-root", "/evenkeel/crash", "--shards", Integer.toString(SHARDS),
            "--placement", "127.0.0.1:" + server.port() + "=0-3", "--effective-delay-ms", "2000",
            "--max-clock-skew-ms", "500",
            "--checkpoint-interval-ms", "1000", "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString())
        .start("ingest-job", dir.resolve("job-" + jobs.size() + ".log"));
    jobs.add(job);
    return job;
  }

  @Test
  void aDeadLetterKafkaHadNotTakenWhenTheJobWasKilledIsThereAfterItsRestart() throws Exception {
    ChangeStream stream = new ChangeStream(5, 200, 1.0);
    long firstRows;
    ChildProcess job = startJob();
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < 1_000; i++) {
        producer.send(new ProducerRecord<>("changes", CHANGES.encode(stream.next(System.currentTimeMillis(), -1, 0))));
      }
      producer.flush();
      awaitDocs(stream.expectedLiveRows().size(), job);
      firstRows = stream.expectedLiveRows().size();
      producer.send(new ProducerRecord<>("changes", "not a change".getBytes(StandardCharsets.UTF_8)));
      for (int i = 0; i < 1_000; i++) {
        producer.send(new ProducerRecord<>("changes", CHANGES.encode(stream.next(System.currentTimeMillis(), -1, 0))));
      }
    }
    // Kafka refuses the letter, and nothing behind it counts as written meanwhile.
    Thread.sleep(8_000);
    assertThat(DeadLetterReasons.read(kafka.bootstrapServers(), DEAD_LETTERS, 1, Duration.ofSeconds(2),
        Duration.ZERO)).as("dead letters Kafka took before the kill").isEmpty();
    assertThat(docs()).as("rows searchable before the kill: none behind the letter").isEqualTo(firstRows);
    job.kill();
    try (Admin admin = kafka.admin()) {
      admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, DEAD_LETTERS),
          List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588"),
              AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }
    ChildProcess restarted = startJob();
    awaitDocs(stream.expectedLiveRows().size(), restarted);
    List<String> reasons = DeadLetterReasons.read(kafka.bootstrapServers(), DEAD_LETTERS, 1,
        Duration.ofSeconds(30), Duration.ZERO);
    assertThat(reasons).as("dead letters after the restart").hasSize(1)
        .allSatisfy(reason -> assertThat(reason).isNotBlank());
  }

  private void awaitDocs(long expected, ChildProcess job) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    long docs = -1;
    while (docs != expected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(expected + " rows searchable (now " + docs + "); " + job.tailReport(40));
      }
      Thread.sleep(500);
      docs = docs();
    }
  }

  private long docs() {
    long docs = 0;
    for (int shard = 0; shard < SHARDS; shard++) {
      docs += server.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
          .stats(StatsRequest.newBuilder().setShard(shard).build()).getDocs();
    }
    return docs;
  }
}
