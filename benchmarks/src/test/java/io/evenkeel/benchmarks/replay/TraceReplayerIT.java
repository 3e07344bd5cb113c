package io.evenkeel.benchmarks.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A trace file replayed into a real broker: every change arrives, moved to the replay's time and row ids. */
class TraceReplayerIT {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @TempDir Path dir;
  private KafkaBroker kafka;

  @BeforeEach
  void start() throws Exception {
    AvroTrust.install();
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
  }

  @AfterEach
  void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  private TraceReplayer.Summary replay(Path trace, String topic, String... pace) {
    List<String> args = new ArrayList<>(List.of("--trace", trace.toString(), "--bootstrap-servers",
        kafka.bootstrapServers(), "--topic", topic));
    args.addAll(List.of(pace));
    CommandLine command = new CommandLine(new TraceReplayer());
    assertThat(command.execute(args.toArray(String[]::new))).isZero();
    return command.getExecutionResult();
  }

  @Test
  void aTraceReplayedAsFastAsPossibleArrivesWholeAtTheReplaysTime() throws Exception {
    Path trace = dir.resolve("trace.avro");
    TraceSpec spec = new TraceSpec(2, 2_000, 2, 1, 1.0, 500, 0.3, new double[0], 3);
    long changes = TraceGenerator.write(spec, trace, progress -> { });
    kafka.createTopic("changes", 4);
    long before = System.currentTimeMillis();
    TraceReplayer.Summary summary = replay(trace, "changes", "--as-fast-as-possible");
    long after = System.currentTimeMillis();
    assertThat(summary.changes()).isEqualTo(changes);

    List<TransactionLogChange> received = new ArrayList<>();
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "trace-replayer-it");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of("changes"));
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (received.size() < changes && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          TransactionLogChange change = CHANGES.decode(record.value());
          assertThat(new String(record.key(), StandardCharsets.UTF_8))
              .isEqualTo(change.getTenantId() + ":" + change.getRowId());
          received.add(change);
        }
      }
    }
    assertThat(received).hasSize((int) changes);
    // The trace's times (0 to 2 s) moved to the replay's start, its row ids past any earlier replay's.
    assertThat(received).allMatch(c -> c.getModifiedTime() >= before && c.getModifiedTime() < after + 2_000
        && c.getRowId() >= before * 1_000);
  }

  @Test
  void aFixedRateOrTheTracesPaceTakesItsTime() throws Exception {
    Path trace = dir.resolve("trace.avro");
    // 1 s at 3,000 a second, then 1 s at 1,000: 4,000 changes over 2 s.
    TraceGenerator.write(new TraceSpec(2, 1_000, 3, 1, 0.5, 100, 0, new double[0], 4), trace, progress -> { });
    kafka.createTopic("paced", 1);
    assertThat(replay(trace, "paced").seconds()).as("at its own pace").isGreaterThan(1.9);
    assertThat(replay(trace, "paced", "--speed", "4").seconds()).as("4x its pace").isGreaterThan(0.45);
    assertThat(replay(trace, "paced", "--rate", "2000").seconds()).as("4,000 at 2,000/s").isGreaterThan(1.9);
  }
}
