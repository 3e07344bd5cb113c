package io.evenkeel.ingest.settings;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The job's Kafka: its brokers and the properties file of its clients, the topic it reads, as which group and from
 * where ({@code earliest}, {@code latest} or {@code committed}), the group its sink records the written offsets in,
 * and the topics it writes.
 */
public record KafkaSettings(String bootstrapServers, String kafkaConfig, String topic, String groupId,
    String startOffsets, String writtenOffsetsGroup, String deadLetterTopic, String summaryTopic,
    String proposalTopic) implements Serializable {
  /**
   * The properties of every Kafka client the job makes: the {@code --kafka-config} file's, passed through as they are
   * (security settings), and the bootstrap servers.
   */
  public Properties clientProperties() {
    Properties properties = new Properties();
    if (kafkaConfig != null) {
      try (InputStream in = Files.newInputStream(Path.of(kafkaConfig))) {
        properties.load(in);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read --kafka-config " + kafkaConfig + ": " + e.getMessage(), e);
      }
    }
    properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return properties;
  }
}
