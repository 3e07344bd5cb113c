package io.evenkeel.ingest.settings;

import picocli.CommandLine.Option;

/** The ingest job's Kafka flags: its brokers and clients, the topic it reads and those it writes. A picocli mixin. */
public final class KafkaOptions {
  @Option(names = "--bootstrap-servers", description = "Kafka brokers. (default: ${DEFAULT-VALUE})")
  private String bootstrapServers = "127.0.0.1:9092";

  @Option(names = "--topic", description = "Topic of Avro single-object changes. (default: ${DEFAULT-VALUE})")
  private String topic = "transaction-logs";

  @Option(names = "--dead-letter-topic",
      description = "Where undecodable or invalid records go, with the reason. (default: ${DEFAULT-VALUE})")
  private String deadLetterTopic = "transaction-logs-dead-letters";

  @Option(names = "--summary-topic",
      description = "Where the monitor writes its window summaries. (default: ${DEFAULT-VALUE})")
  private String summaryTopic = "tenant-window-summaries";

  @Option(names = "--proposal-topic",
      description = "Where rule proposals and their outcomes go. (default: ${DEFAULT-VALUE})")
  private String proposalTopic = "rule-proposals";

  @Option(names = "--group-id", description = "Kafka consumer group. (default: ${DEFAULT-VALUE})")
  private String groupId = "evenkeel-ingest";

  @Option(names = "--written-offsets-group",
      description = "The Kafka consumer group in which the sink records, per partition, the offset up to which every "
          + "change is written to its shard (no consumer joins it). (default: <group-id>.written)")
  private String writtenOffsetsGroup;

  @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties for every client of "
      + "the job (source, sinks, the written-offsets admin), e.g. security.protocol, sasl.mechanism, sasl.jaas.config, "
      + "ssl.truststore.location.")
  private String kafkaConfig;

  @Option(names = "--start-offsets",
      description = "earliest, latest, or committed (falling back to earliest). (default: ${DEFAULT-VALUE})")
  private String startOffsets = "committed";

  /** The flags as parsed, unchecked; the written-offsets group defaulted. */
  KafkaSettings settings() {
    return new KafkaSettings(bootstrapServers, kafkaConfig, topic, groupId, startOffsets,
        writtenOffsetsGroup != null ? writtenOffsetsGroup : groupId + ".written", deadLetterTopic, summaryTopic,
        proposalTopic);
  }
}
