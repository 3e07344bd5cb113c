package io.evenkeel.ingest;

import io.evenkeel.ingest.cdc.DebeziumEnvelopeFormat;
import io.evenkeel.ingest.detect.HotspotDetector;
import io.evenkeel.ingest.detect.LogStoreDetector;
import io.evenkeel.ingest.detect.ProposalCommitter;
import io.evenkeel.ingest.fold.ChangeFolder;
import io.evenkeel.ingest.monitor.LocalWindowCounter;
import io.evenkeel.ingest.monitor.WindowCount;
import io.evenkeel.ingest.monitor.WindowSummarizer;
import io.evenkeel.ingest.route.ChangeRouter;
import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.ingest.settings.KafkaSettings;
import io.evenkeel.ingest.sink.ShardSink;
import io.evenkeel.ingest.source.ChangeDecoder;
import io.evenkeel.ingest.source.WrittenOffsetsInitializer;
import io.evenkeel.ingest.source.RawRecord;
import io.evenkeel.ingest.source.RawRecordDeserializer;
import io.evenkeel.ingest.source.RecordFormat;
import io.evenkeel.ingest.source.SingleObjectFormat;
import io.evenkeel.ingest.source.SourcedChange;
import io.evenkeel.router.policy.PolicySpec;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.WindowSummary;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The ingest pipeline: Kafka → decode (bad records to the dead-letter topic) → route (a participant of the rule
 * protocol) → [monitor: per-window tenant and shard counts → summaries → hotspot detector → rule proposals] and
 * [write batching per row → one-hop batched writes to each shard's primary].
 */
public final class IngestJob {
  private IngestJob() {}

  public static void build(StreamExecutionEnvironment env, IngestSettings settings) {
    changesToSend(env, settings).sinkTo(new ShardSink(settings)).name("shards (one hop)").uid("shard-sink");
  }

  /**
   * Everything before the shard sink: source, decode, route, monitor and write batching. The benchmarks measure it
   * on its own, with a sink that only counts.
   */
  public static DataStream<RoutedChange> changesToSend(StreamExecutionEnvironment env, IngestSettings settings) {
    OffsetsInitializer startOffsets;
    OffsetsInitializer cdcStartOffsets = null;
    try (Admin admin = Admin.create(settings.kafka().clientProperties())) {
      createOutputTopics(admin, settings.kafka());
      startOffsets = startOffsets(admin, settings.kafka(), settings.kafka().topic());
      if (settings.cdc().enabled()) {
        cdcStartOffsets = startOffsets(admin, settings.kafka(), settings.cdc().topic());
      }
    }
    // No operator changes a record it received or keeps one it emitted: chained operators may pass records as they
    // are instead of deep-copying every Avro change at each step.
    env.getConfig().enableObjectReuse();
    // A checkpoint that cannot complete (routing waits out a ZooKeeper outage, a shard server is paused) expires;
    // the job goes on and the next one completes once the wait is over, instead of restarting and replaying.
    env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
    SingleOutputStreamOperator<SourcedChange> produced = decoded(env, settings, settings.kafka().topic(),
        startOffsets, new SingleObjectFormat(), "");
    DataStream<SourcedChange> changes = produced;
    if (settings.cdc().enabled()) {
      // A second source: Debezium's change events of a MySQL or MariaDB table (bin/evenkeel cdc).
      SingleOutputStreamOperator<SourcedChange> captured = decoded(env, settings, settings.cdc().topic(),
          cdcStartOffsets, new DebeziumEnvelopeFormat(settings.cdc().columnMapping(), settings.cdc().datetimeZone()),
          "cdc-");
      changes = changes.union(captured);
    }

    DataStream<RoutedChange> routed = changes
        .process(new ChangeRouter(settings)).name("route (" + settings.policy() + ")").uid("route")
        .assignTimestampsAndWatermarks(WatermarkStrategy.<RoutedChange>forBoundedOutOfOrderness(Duration.ofSeconds(1))
            .withTimestampAssigner((r, previous) -> r.change.getModifiedTime())
            .withIdleness(Duration.ofSeconds(2)))
        .name("event time: modified_time").uid("watermarks");

    monitor(routed, settings);

    // Chained after routing, without a shuffle: see ChangeFolder for why no keyBy is needed.
    long batchWindowMs = settings.sink().batchWindowMs();
    return batchWindowMs == 0 ? routed : routed
        .transform("fold changes per row", TypeInformation.of(RoutedChange.class),
            new ChangeFolder(batchWindowMs)).uid("fold");
  }

  private static void monitor(DataStream<RoutedChange> routed, IngestSettings settings) {
    long windowMs = settings.balancer().monitorWindowMs();
    Duration window = Duration.ofMillis(windowMs);
    double reportShare = settings.monitorReportShare();
    DataStream<WindowSummary> summaries = routed
        .transform("count per window (local)", TypeInformation.of(WindowCount.class),
            new LocalWindowCounter(windowMs)).uid("local-window-counts")
        .keyBy(c -> Tuple2.of(c.kind, c.key), TypeInformation.of(new TypeHint<Tuple2<Integer, Long>>() {}))
        .window(TumblingEventTimeWindows.of(window))
        .reduce((a, b) -> new WindowCount(a.windowStart, a.kind, a.key, a.count + b.count))
        .name("count per window").uid("window-counts")
        .windowAll(TumblingEventTimeWindows.of(window))
        .process(new WindowSummarizer(10, reportShare)).name("window summary").uid("window-summary");
    KafkaSettings kafka = settings.kafka();
    summaries.sinkTo(kafka(kafka, kafka.summaryTopic(), WindowSummary.class))
        .name("summaries: " + kafka.summaryTopic()).uid("summaries");
    if (!settings.policy().byRuleList()) {
      return;
    }
    boolean logStore = settings.policy().kind() == PolicySpec.Kind.LOGSTORE;
    DataStream<RuleProposal> proposals = summaries
        .keyBy(s -> 0)
        .process(logStore ? new LogStoreDetector(settings) : new HotspotDetector(settings))
        .name(logStore ? "logstore tables" : "hotspot detector").uid("hotspot-detector")
        .setParallelism(1);
    AsyncDataStream.unorderedWait(proposals, new ProposalCommitter(settings),
            settings.balancer().effectiveDelayMs() * 3, TimeUnit.MILLISECONDS, 100)
        .name("rule commit protocol").uid("rule-commit").setParallelism(1)
        .sinkTo(kafka(kafka, kafka.proposalTopic(), RuleProposal.class))
        .name("proposals: " + kafka.proposalTopic()).uid("proposals");
  }

  /** A topic's records, decoded and checked: the changes, and the dead letters as the side output. */
  private static SingleOutputStreamOperator<SourcedChange> decoded(StreamExecutionEnvironment env,
      IngestSettings settings, String topic, OffsetsInitializer startOffsets, RecordFormat format, String uidPrefix) {
    KafkaSettings kafka = settings.kafka();
    KafkaSource<RawRecord> source = KafkaSource.<RawRecord>builder()
        .setProperties(kafka.clientProperties())
        .setBootstrapServers(kafka.bootstrapServers())
        .setTopics(topic)
        .setGroupId(kafka.groupId())
        .setStartingOffsets(startOffsets)
        .setDeserializer(new RawRecordDeserializer())
        .build();
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka: " + topic).uid(uidPrefix + "kafka-source")
        .process(new ChangeDecoder(settings.balancer().effectiveDelayMs(), format, kafka.clientProperties(),
            kafka.deadLetterTopic())).name(uidPrefix + "decode")
        .uid(uidPrefix + "decode");
  }

  private static OffsetsInitializer startOffsets(Admin admin, KafkaSettings kafka, String topic) {
    return switch (kafka.startOffsets()) {
      case "earliest" -> OffsetsInitializer.earliest();
      case "latest" -> OffsetsInitializer.latest();
      default -> writtenOffsets(admin, kafka, topic);
    };
  }

  /**
   * Creates the topics the job writes to (dead letters, summaries, proposals) with the broker's defaults when they
   * do not exist, before any producer sends: a producer racing the broker's automatic creation could wait out its
   * delivery timeout on a partition with no leader yet and fail the job at a checkpoint.
   */
  private static void createOutputTopics(Admin admin, KafkaSettings kafka) {
    try {
      Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
      List<NewTopic> missing = Stream.of(kafka.deadLetterTopic(), kafka.summaryTopic(), kafka.proposalTopic())
          .distinct().filter(topic -> !existing.contains(topic))
          .map(topic -> new NewTopic(topic, Optional.empty(), Optional.empty())).toList();
      if (!missing.isEmpty()) {
        admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the job's topics", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create the job's topics on " + kafka.bootstrapServers() + ": "
            + e.getCause().getMessage(), e);
      }
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("creating the job's topics on " + kafka.bootstrapServers() + " took over 60 s",
          e);
    }
  }

  /**
   * Where "committed" starts a new job: at the offsets the shard sink published as written, and the earliest where
   * a partition has none ({@link WrittenOffsetsInitializer}).
   */
  private static OffsetsInitializer writtenOffsets(Admin admin, KafkaSettings kafka, String topic) {
    try {
      Map<TopicPartition, Long> written = new HashMap<>();
      admin.listConsumerGroupOffsets(kafka.writtenOffsetsGroup()).partitionsToOffsetAndMetadata()
          .get(60, TimeUnit.SECONDS).forEach((partition, offset) -> {
            if (offset != null && partition.topic().equals(topic)) {
              written.put(partition, offset.offset());
            }
          });
      return new WrittenOffsetsInitializer(written);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the written offsets", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read the written offsets of group " + kafka.writtenOffsetsGroup()
          + " from " + kafka.bootstrapServers() + ": " + e.getMessage(), e);
    }
  }

  private static <T extends SpecificRecord> KafkaSink<T> kafka(KafkaSettings kafka, String topic, Class<T> type) {
    return KafkaSink.<T>builder()
        .setKafkaProducerConfig(kafka.clientProperties())
        .setBootstrapServers(kafka.bootstrapServers())
        .setRecordSerializer(KafkaRecordSerializationSchema.builder()
            .setTopic(topic)
            .setValueSerializationSchema(new AvroMessages<>(type))
            .build())
        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .build();
  }
}
