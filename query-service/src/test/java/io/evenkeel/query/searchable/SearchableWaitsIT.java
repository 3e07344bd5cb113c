package io.evenkeel.query.searchable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.PartitionOffset;
import io.evenkeel.schemas.change.SourcePosition;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits by a captured table's binlog position or GTID against a real broker: a position the CDC runner published (a
 * {@link CdcPosition} on the change topic's positions topic) must reach the point named, then the ingest job's written
 * offsets (a consumer group) the offsets published with the earliest such position; until then the answer says which
 * of the two is behind and by how much. Names that are no CDC runner's topic are 400s, create nothing and delay no
 * other caller's wait.
 */
class SearchableWaitsIT {
  private static final String CHANGES = "cdc.shop.orders";
  private static final String WRITTEN = "evenkeel-ingest.written";
  private static final SingleObjectCodec<CdcPosition> POSITIONS = SingleObjectCodec.of(CdcPosition.class);

  @TempDir static Path dir;
  private static KafkaBroker kafka;

  @BeforeAll
  static void start() throws Exception {
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
    kafka.ensureTopic(CHANGES, 2);
    kafka.ensureTopic(SourcePosition.topicOf(CHANGES), 1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static Properties client() {
    Properties properties = new Properties();
    properties.putAll(kafka.clientProperties());
    properties.put("bootstrap.servers", kafka.bootstrapServers());
    return properties;
  }

  private static void publish(CdcPosition position) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(client(), new ByteArraySerializer(),
        new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(SourcePosition.topicOf(CHANGES), "position".getBytes(),
          POSITIONS.encode(position))).get();
    }
  }

  /** The ingest job has written the change topic's partitions up to (not including) these offsets. */
  private static void written(long partition0, long partition1) throws Exception {
    try (Admin admin = Admin.create(client())) {
      admin.alterConsumerGroupOffsets(WRITTEN, Map.of(new TopicPartition(CHANGES, 0),
          new OffsetAndMetadata(partition0), new TopicPartition(CHANGES, 1), new OffsetAndMetadata(partition1)))
          .all().get();
    }
  }

  @Test
  void aSourcePositionWaitsForTheCdcRunnerThenForTheIngestJob() throws Exception {
    AtomicInteger refreshes = new AtomicInteger();
    try (SearchableWaits waits = new SearchableWaits(WrittenOffsets.of(client(), WRITTEN), client(),
        "transaction-logs", CHANGES, refreshes::incrementAndGet)) {
      SourcePosition committed = SourcePosition.binlog("binlog.000002:700");
      SourcePosition gtid = SourcePosition.gtids("0-1-41");

      // The runner has published nothing yet: it is the one behind, with nothing to say.
      SearchableWaits.Answer none = waits.await(null, committed, Duration.ofMillis(200));
      assertThat(none.searchable()).isFalse();
      assertThat(none.cdcBehind()).isTrue();
      assertThat(none.cdcPublished()).isNull();

      // Published, not that far yet: it says how far.
      publish(new CdcPosition("binlog.000002", 500L, "0-1-40", List.of(new PartitionOffset(0, 9L)), 1L));
      SearchableWaits.Answer early = waits.await(null, committed, Duration.ofMillis(200));
      assertThat(early.cdcBehind()).isTrue();
      assertThat(early.cdcPublished().getBinlogPosition()).isEqualTo(500L);
      assertThat(waits.await(null, gtid, Duration.ofMillis(200)).cdcBehind()).isTrue();

      // Past it: now the ingest job is behind, by partition.
      publish(new CdcPosition("binlog.000002", 800L, "0-1-41",
          List.of(new PartitionOffset(0, 9L), new PartitionOffset(1, 4L)), 2L));
      written(10, 3);
      SearchableWaits.Answer behind = waits.await(null, committed, Duration.ofMillis(300));
      assertThat(behind.searchable()).isFalse();
      assertThat(behind.cdcBehind()).isFalse();
      assertThat(behind.behind()).containsExactly(new SearchableWaits.Lag(1, 4, 3));
      assertThat(behind.recordsBehind()).isEqualTo(2);
      assertThat(refreshes).hasValue(0);

      written(10, 5);
      assertThat(waits.await(null, committed, Duration.ofSeconds(5)).searchable()).isTrue();
      assertThat(waits.await(CHANGES, gtid, Duration.ofSeconds(5)).searchable()).isTrue();
      assertThat(refreshes.get()).as("a refresh started after each wait was satisfied").isBetween(1, 2);

      // The runner goes on: a wait for the point reached before still waits only for the offsets published then
      // (the later changes are not written yet), and a wait for the later point waits for the later offsets.
      publish(new CdcPosition("binlog.000003", 100L, "0-1-50",
          List.of(new PartitionOffset(0, 30L), new PartitionOffset(1, 40L)), 3L));
      assertThat(waits.await(null, committed, Duration.ofSeconds(5)).searchable()).isTrue();
      SearchableWaits.Answer later = waits.await(null, SourcePosition.gtids("0-1-50"), Duration.ofMillis(300));
      assertThat(later.behind()).containsExactly(new SearchableWaits.Lag(0, 30, 10), new SearchableWaits.Lag(1, 40, 5));
    }
  }

  @Test
  void namesThatAreNoCdcRunnersTopicAre400sAndCreateNothing() throws Exception {
    try (SearchableWaits waits = new SearchableWaits(WrittenOffsets.of(client(), WRITTEN), client(),
        "transaction-logs", null, () -> {})) {
      SourcePosition position = SourcePosition.binlog("binlog.000001:4");
      assertThatThrownBy(() -> waits.await(null, position, Duration.ofSeconds(1)))
          .isInstanceOf(QueryException.class).hasMessageContaining("runs without --cdc-topic");
      assertThatThrownBy(() -> waits.await("no.such.table", position, Duration.ofSeconds(1)))
          .isInstanceOf(QueryException.class).hasMessageContaining("does not exist");
      assertThatThrownBy(() -> waits.await("a/b", position, Duration.ofSeconds(1)))
          .isInstanceOf(QueryException.class).hasMessageContaining("a topic name is");
      assertThatThrownBy(() -> waits.await("x".repeat(250), Map.of(0, 1L), Duration.ofSeconds(1)))
          .isInstanceOf(QueryException.class).hasMessageContaining("a topic name is");
      assertThatThrownBy(() -> waits.await(CHANGES, position, Duration.ofSeconds(61)))
          .isInstanceOf(QueryException.class).hasMessageContaining("the timeout is 0 to 60000 ms");
    }
    try (Admin admin = Admin.create(client())) {
      assertThat(admin.listTopics().names().get()).doesNotContain("no.such.table",
          SourcePosition.topicOf("no.such.table"));
    }
  }

  @Test
  void callersNamingMissingTopicsDelayNoOneElse() throws Exception {
    ExecutorService hostile = Executors.newFixedThreadPool(4);
    AtomicBoolean attacking = new AtomicBoolean(true);
    AtomicInteger refused = new AtomicInteger();
    try (SearchableWaits waits = new SearchableWaits(WrittenOffsets.of(client(), WRITTEN), client(),
        "transaction-logs", CHANGES, () -> {})) {
      SourcePosition far = SourcePosition.binlog("binlog.999999:4");
      waits.await(null, far, Duration.ZERO);
      List<Future<?>> callers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        callers.add(hostile.submit(() -> {
          for (int n = 0; attacking.get(); n++) {
            try {
              waits.await("missing." + thread + "." + n, far, Duration.ofSeconds(1));
            } catch (QueryException e) {
              refused.incrementAndGet();
            }
          }
          return null;
        }));
      }
      Thread.sleep(300);
      long slowest = 0;
      for (int i = 0; i < 20; i++) {
        long started = System.nanoTime();
        assertThat(waits.await(null, far, Duration.ZERO).cdcBehind()).isTrue();
        slowest = Math.max(slowest, (System.nanoTime() - started) / 1_000_000);
        Thread.sleep(100);
      }
      assertThat(slowest).as("a wait's longest answer while others name missing topics, ms").isLessThan(500);

      attacking.set(false);
      for (Future<?> caller : callers) {
        caller.get(10, TimeUnit.SECONDS);
      }
      assertThat(refused.get()).isGreaterThanOrEqualTo(4);

      // A name just found missing is answered at once.
      assertThatThrownBy(() -> waits.await("missing.again", far, Duration.ofSeconds(1)))
          .hasMessageContaining("does not exist");
      long started = System.nanoTime();
      assertThatThrownBy(() -> waits.await("missing.again", far, Duration.ofSeconds(1)))
          .hasMessageContaining("does not exist");
      assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(200);
    } finally {
      attacking.set(false);
      hostile.shutdownNow();
    }
  }
}
