package io.evenkeel.ingest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.ShardServerProcess;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.source.DeadLetterSerializer;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.Exists;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.MatchAll;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.ShardServiceGrpc.ShardServiceBlockingStub;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shard sink against a real shard-server process and a real broker: changes a shard refuses (here ones that
 * skipped the job's validation, as from a job older than its shard servers) are found by splitting their batches and
 * dead-lettered with the shard's reason, every other change is written, and every offset counts as written; changes
 * of almost a megabyte each, 80 MB of them for one shard, go in requests under the servers' 64 MiB limit; and a
 * tenant moved between a shard's normal and hot lanes while its rows are inserted and updated keeps each row's
 * changes in order.
 */
class ShardSinkRefusalsIT {
  private static final int SHARDS = 4;
  private static final String TOPIC = "changes";
  private static final String DEAD_LETTERS = "dead-letters";
  private static final SingleObjectCodec<TransactionLogChange> CHANGES =
      SingleObjectCodec.of(TransactionLogChange.class);

  @TempDir Path dir;
  private KafkaBroker kafka;
  private ShardServerProcess server;
  private final ClusterClient cluster = new ClusterClient();

  @BeforeEach
  void start() throws Exception {
    kafka = KafkaBroker.builder(dir.resolve("kafka")).freePorts().start();
    kafka.createTopic(DEAD_LETTERS, 1);
    server = ShardServerProcess.start(dir.resolve("shards"), "--shards", "0-3", "--refresh-interval-ms", "200");
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
    server.close();
    kafka.close();
  }

  private static TransactionLogChange insert(long row, String title) {
    long now = System.currentTimeMillis();
    return TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT).setTenantId(row % 50).setRowId(row)
        .setCreatedTime(now).setModifiedTime(now).setVersion(1).setStatus(1).setSellerNick("seller-" + row % 50)
        .setTitle(title).setPrice(BigDecimal.valueOf(1999, 2)).setQuantity(1).build();
  }

  private static RoutedChange routed(int shard, TransactionLogChange change, long offset) {
    return new RoutedChange(shard, change, CHANGES.encode(change), TOPIC, 0, offset, offset);
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void refusedChangesAreDeadLetteredAndBigChangesGoInRequestsUnderTheLimit() throws Exception {
    Random random = new Random(22);
    List<RoutedChange> changes = new ArrayList<>();
    Map<Long, String> refusedByOffset = new TreeMap<>();
    Map<Integer, Integer> expectedRows = new HashMap<>();
    for (long row = 0; row < 4_000; row++) {
      int shard = (int) (row % SHARDS);
      TransactionLogChange change = insert(row, "item " + row);
      if (random.nextInt(500) == 0) {
        // A keyword over Lucene's 32,766-byte term limit: the shard refuses the whole batch holding it.
        change = TransactionLogChange.newBuilder(change).setBuyerNick("b".repeat(40_000)).build();
        refusedByOffset.put(row, "buyer_nick");
      } else {
        expectedRows.merge(shard, 1, Integer::sum);
      }
      changes.add(routed(shard, change, row));
    }
    // 100 changes of 800 kB for shard 0, in a row: one batch of them would be 80 MB.
    String words = "lorem ipsum dolor sit amet ".repeat(30_000).substring(0, 800_000);
    for (long row = 4_000; row < 4_100; row++) {
      changes.add(routed(0, insert(row, words), row));
      expectedRows.merge(0, 1, Integer::sum);
    }
    assertThat(refusedByOffset).hasSizeGreaterThanOrEqualTo(3);

    Properties producer = new Properties();
    producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    ShardPlacement placement = ShardPlacement.fixed(SHARDS, "127.0.0.1:" + server.port() + "=0-3");
    ShardAddress address = new ShardAddress("127.0.0.1", server.port());
    try (ShardWriteClient client = new ShardWriteClient(placement, "refusals-it", 30_000, null);
        RefusedChanges refused = new RefusedChanges(producer, DEAD_LETTERS)) {
      ShardLanes lanes = new ShardLanes(SHARDS, new ShardLanes.Bounds(1_000, 4L << 20, 50_000, 20_000, 32L << 20),
          50, System::currentTimeMillis, client, refused,
          new SinkMetrics(new UnregisteredMetricsGroup(), new ShardAddress[] {address, address, address, address}),
          tenant -> false, null);
      for (RoutedChange change : changes) {
        lanes.add(change);
      }
      lanes.flush();
      lanes.checkFailure();
      assertThat(lanes.advanceWritten()).as("every offset counts as written, the refused ones too")
          .isEqualTo(Map.of(new TopicPartition(TOPIC, 0), 4_100L));
    } finally {
      placement.close();
    }

    ShardServiceBlockingStub shards = cluster.blockingStub(address);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (int shard = 0; shard < SHARDS; shard++) {
      long rows;
      while ((rows = count(shards, shard)) != expectedRows.get(shard) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(rows).as("rows on shard %d", shard).isEqualTo(expectedRows.get(shard).longValue());
    }

    Map<Long, String> reasons = new TreeMap<>();
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "refusals-it");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(DEAD_LETTERS));
      while (reasons.size() < refusedByOffset.size() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          String source = header(record, DeadLetterSerializer.SOURCE_HEADER);
          long offset = Long.parseLong(source.substring(source.lastIndexOf('/') + 1));
          assertThat(source).isEqualTo(TOPIC + "/0/" + offset);
          assertThat(CHANGES.decode(record.value()).getRowId()).isEqualTo(offset);
          reasons.put(offset, header(record, DeadLetterSerializer.REASON_HEADER));
        }
      }
    }
    assertThat(reasons.keySet()).isEqualTo(refusedByOffset.keySet());
    reasons.forEach((offset, reason) -> assertThat(reason).startsWith("shard " + offset % SHARDS
        + " refused the change: ").contains(refusedByOffset.get(offset)));
  }

  /**
   * Every row of one tenant is inserted, then updated by a partial update of its status a few changes later, while
   * the monitor's view moves the tenant into the hot lane every 600 changes and out again, with small batches so that
   * the normal lane has a request in flight and more buffered at each move. A partial update that overtook its insert would leave a row without its
   * other columns (the insert, older, would then be ignored).
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aTenantSwitchingLanesKeepsEachRowsChangesInOrder() throws Exception {
    int rows = 30_000;
    int lag = 40;
    List<RoutedChange> changes = new ArrayList<>();
    long offset = 0;
    for (long row = 0; row < rows + lag; row++) {
      if (row < rows) {
        changes.add(routed(0, TransactionLogChange.newBuilder(insert(row, "item " + row)).setTenantId(7).build(),
            offset++));
      }
      if (row >= lag) {
        TransactionLogChange inserted = changes.get(0).change;
        changes.add(routed(0, TransactionLogChange.newBuilder().setOp(ChangeOp.UPDATE).setTenantId(7)
            .setRowId(row - lag).setCreatedTime(inserted.getCreatedTime()).setModifiedTime(System.currentTimeMillis())
            .setVersion(2).setStatus(2).setSetColumns(List.of("status")).build(), offset++));
      }
    }
    Properties producer = new Properties();
    producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    ShardPlacement placement = ShardPlacement.fixed(SHARDS, "127.0.0.1:" + server.port() + "=0-3");
    ShardAddress address = new ShardAddress("127.0.0.1", server.port());
    boolean[] hot = {false};
    try (ShardWriteClient client = new ShardWriteClient(placement, "lanes-it", 30_000, null);
        RefusedChanges refused = new RefusedChanges(producer, DEAD_LETTERS)) {
      ShardLanes lanes = new ShardLanes(SHARDS, new ShardLanes.Bounds(50, 4L << 20, 50_000, 20_000, 32L << 20),
          50, System::currentTimeMillis, client, refused,
          new SinkMetrics(new UnregisteredMetricsGroup(), new ShardAddress[] {address, address, address, address}),
          tenant -> hot[0], null);
      for (int i = 0; i < changes.size(); i++) {
        if (i % 600 == 0) {
          // Cooled: back in the normal lane once the hot lane has drained.
          hot[0] = false;
          lanes.flush();
        } else if (i % 600 == 300) {
          // Hot again while the normal lane holds its last 300 changes, some of them in flight.
          hot[0] = true;
        }
        lanes.add(changes.get(i));
      }
      lanes.flush();
      lanes.checkFailure();
      assertThat(lanes.advanceWritten()).isEqualTo(Map.of(new TopicPartition(TOPIC, 0), offset));
    } finally {
      placement.close();
    }

    ShardServiceBlockingStub shards = cluster.blockingStub(address);
    Filter updated = Filter.newBuilder().setTerm(Term.newBuilder().setField("status")
        .setValue(Value.newBuilder().setLongValue(2))).build();
    Filter whole = Filter.newBuilder().setBool(Bool.newBuilder().addMust(updated)
        .addMust(Filter.newBuilder().setExists(Exists.newBuilder().setField("seller_nick")))).build();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (count(shards, 0, updated) < rows && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(count(shards, 0, updated)).as("rows updated").isEqualTo(rows);
    assertThat(count(shards, 0, whole)).as("rows updated that kept their inserted columns").isEqualTo(rows);
  }

  private static long count(ShardServiceBlockingStub shards, int shard) {
    return count(shards, shard, Filter.newBuilder().setMatchAll(MatchAll.getDefaultInstance()).build());
  }

  private static long count(ShardServiceBlockingStub shards, int shard, Filter filter) {
    return shards.search(SearchRequest.newBuilder().setShard(shard).setQuery(Query.newBuilder().setTrackTotal(true)
        .setFilter(filter)).build()).getTotal();
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
